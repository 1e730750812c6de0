import AudioGraph
import GraphFormat
import AudioSession
import ControlSocket
import Foundation
import JackBackend

/// `connect` and `disconnect`: between apps (a new plan), or with any JACK port (jack_connect).
extension EngineCore {
    /// One side of a connection: app ports, or JACK port names outside the engine.
    enum Endpoint {
        case apps([PortAddress])
        case outside([String])
    }

    /// Resolves `APP:PORT`, a glob `APP:out_*`, `@playback`/`@capture`, or a full JACK name.
    func endpoint(_ text: String, output: Bool, field: String) throws -> Endpoint {
        switch text {
        case "@playback": return .outside(backend.resolve(.physicalPlayback))
        case "@capture": return .outside(backend.resolve(.physicalCapture))
        case "@midi-capture": return .outside(backend.resolve(.physicalMIDICapture))
        default: break
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw RequestError(.invalidParams, "\"\(text)\" is neither APP:PORT nor a JACK port name", field: field)
        }
        let appID = String(text[..<colon]), portName = String(text[text.index(after: colon)...])
        guard let index = graph.appIndex(appID) else {
            if appID == clientName, let dot = portName.firstIndex(of: ".") {
                return try endpoint("\(portName[..<dot]):\(portName[portName.index(after: dot)...])", output: output, field: field)
            }
            return .outside([text])
        }
        let ports = output ? graph.apps[index].layout.outputs : graph.apps[index].layout.inputs
        let glob = PortGlob(portName)
        let matches = ports.indices.filter { glob.matches(ports[$0].name) }
        guard !matches.isEmpty else {
            throw RequestError(.unknownPort, "app \"\(appID)\" has no \(output ? "output" : "input") \"\(portName)\" (\(output ? "outputs" : "inputs"): \(ports.map(\.name).joined(separator: ", ")))",
                               field: field)
        }
        return .apps(matches.map { PortAddress(app: index, port: $0) })
    }

    /// Our JACK name of an app port.
    func jackName(_ address: PortAddress, output: Bool) -> String {
        let app = graph.apps[address.app]
        let spec = output ? app.layout.outputs[address.port] : app.layout.inputs[address.port]
        return backend.fullName("\(app.id).\(spec.name)")
    }

    func connect(_ request: ControlRequest) throws -> ControlReply {
        let source = try endpoint(try string(request, "from"), output: true, field: "from")
        let destination = try endpoint(try string(request, "to"), output: false, field: "to")
        let gain = request["gain"]?.doubleValue.map(Float.init) ?? request["gain"]?.stringValue.flatMap(ParameterValue.parse) ?? 1
        guard gain.isFinite, gain >= 0 else {
            throw RequestError(.invalidGain, "gain must be a finite number ≥ 0", field: "gain")
        }
        var made: [ControlJSON] = []
        switch (source, destination) {
        case (.apps(let outputs), .apps(let inputs)):
            var edited = graph
            for (from, to) in PortPairing.pairs(outputs, inputs) {
                switch edited.connecting(Connection(from: from, to: to, gain: gain), live: sessions.policy) {
                case .success(let next): edited = next
                case .failure(let error):
                    throw RequestError(error.code, error.hint.map { "\(error.message); \($0)" } ?? error.message)
                }
                let (fromName, toName) = Self.names(Connection(from: from, to: to), in: edited)
                made.append(.object([("from", .string(fromName)), ("to", .string(toName)), ("internal", .bool(true)), ("already", .bool(false))]))
            }
            publish(try install(edited, sameSessions: true))
            installAwaitingGraph()
        default:
            let sources = try jackNames(source, output: true, field: "from")
            let destinations = try jackNames(destination, output: false, field: "to")
            for (from, to) in PortPairing.pairs(sources, destinations) {
                noteOwnConnection(from, to)
                let outcome = backend.connect(from, to)
                if case .failed(let why) = outcome.result {
                    throw RequestError(.jackRefused, "cannot connect \(from) -> \(to): \(why)")
                }
                made.append(.object([("from", .string(from)), ("to", .string(to)), ("internal", .bool(false)),
                                     ("already", .bool(outcome.result == .alreadyConnected))]))
            }
        }
        return .result(.object([("connected", .array(made))]))
    }

    func disconnect(_ request: ControlRequest) throws -> ControlReply {
        let source = try endpoint(try string(request, "from"), output: true, field: "from")
        let destination = try endpoint(try string(request, "to"), output: false, field: "to")
        var removed: [ControlJSON] = []
        switch (source, destination) {
        case (.apps(let outputs), .apps(let inputs)):
            var edited = graph
            for (from, to) in PortPairing.pairs(outputs, inputs) {
                let (fromName, toName) = Self.names(Connection(from: from, to: to), in: edited)
                switch edited.disconnecting(from: from, to: to) {
                case .success(let next): edited = next
                case .failure(let error): throw RequestError(.notConnected, error.message)
                }
                removed.append(.object([("from", .string(fromName)), ("to", .string(toName)), ("internal", .bool(true))]))
            }
            // A node losing its last host fades out first; the plan without the connection follows.
            publish(sessions.graphChanged(to: edited, at: now))
            _ = sessions.takeGraphAwaitingInstall()
            installAfterFade(sessions.graph)
        default:
            let pairs = PortPairing.pairs(try jackNames(source, output: true, field: "from"),
                                          try jackNames(destination, output: false, field: "to"))
            for (from, to) in pairs {
                // A rule's connection stays removed, as one removed by hand (see `heldRulePairs`).
                if rulePair(from, to) != nil { heldRulePairs.insert([from, to]) }
                guard backend.disconnect(from, to) else {
                    throw RequestError(.notConnected, "\(from) is not connected to \(to)")
                }
                removed.append(.object([("from", .string(from)), ("to", .string(to)), ("internal", .bool(false))]))
            }
        }
        return .result(.object([("disconnected", .array(removed))]))
    }

    /// The JACK names of an endpoint's ports; an app port the graph's `jack.expose` leaves out
    /// has none, which is an error that says how to expose it.
    private func jackNames(_ endpoint: Endpoint, output: Bool, field: String) throws -> [String] {
        switch endpoint {
        case .apps(let addresses):
            for address in addresses where !graph.exposure.exposes(app: address.app, output ? .output : .input, port: address.port) {
                let app = graph.apps[address.app]
                let name = "\(app.id):\((output ? app.layout.outputs : app.layout.inputs)[address.port].name)"
                throw RequestError(.notExposed, "\(name) is not a JACK port: the graph's \"jack\": {\"expose\"} leaves it out; add \"\(name)\" there (iaa apply)",
                                   field: field)
            }
            return addresses.map { jackName($0, output: output) }
        case .outside(let names):
            return names
        }
    }

    /// Applies a session action (from a request, the clock or a route change), then ends what
    /// Inter-App Audio no longer allows: the nodes fade out and the plan without them follows.
    func applySession(_ action: SessionAction, at time: Double) -> SessionOutcome {
        let outcome = sessions.apply(action, at: time)
        installAwaitingGraph()
        return outcome
    }

    /// Installs the graph the session controller left waiting, once its nodes have faded out.
    func installAwaitingGraph() {
        guard let graph = sessions.takeGraphAwaitingInstall() else { return }
        installAfterFade(graph)
    }

    /// Installs `graph` after the gain ramp, unless its connections changed meanwhile.
    private func installAfterFade(_ graph: Graph) {
        queue.asyncAfter(deadline: .now() + graph.policy.rampSeconds + 0.005) { [self] in
            // An app admitted or removed meanwhile makes `graph` stale too.
            if self.graph.connections == graph.connections, self.graph.apps.map(\.id) == graph.apps.map(\.id) {
                _ = try? install(graph, sameSessions: true)
            }
        }
    }
}
