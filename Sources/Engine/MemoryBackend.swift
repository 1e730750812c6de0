import AudioGraph
import RenderCore
import JackBackend
import NodeKit
import OfflineBackend
import Synchronization

/// A JACK server in memory, for testing the live engine's logic without one: clients with ports
/// and processes, connections, the physical `system` ports, and the notifications JACK sends
/// (registrations, connections, clients leaving, a new buffer size, the server's death), each
/// delivered at once on the thread that caused it. Cycles run only when asked (``render(frames:)``,
/// through an ``OfflineBackend``), so a test can listen to what the engine makes too.
///
/// Deterministic: no thread of its own, no clock. A test acts on it, then lets the engine's
/// queue run what the notifications handed it (`core.queue.sync {}`).
final class MemoryBackend: LiveBackend, @unchecked Sendable {
    /// One port on the server.
    struct Port: Sendable, Equatable {
        let name: String
        let isInput: Bool
        let isPhysical: Bool
        let isMIDI: Bool
        var client: String { MemoryBackend.client(of: name) }
    }

    private struct Server {
        var ports: [Port] = []
        var connections: [[String]] = []
        var processes: [String: ProcessIdentity] = [:]
        var rolling = false
        var recording = false
        var tempo = 120.0
        var beatsPerBar = 4.0
        var bufferSize: Int
        var shutDown = false
        var active = false
        var refusesConnections = false
        var health = CycleHealth()
    }

    /// What JACK and the audio thread would report of the cycles: none go wrong unless a test says so.
    struct CycleHealth {
        var xruns: Int64 = 0
        var ourXruns: Int64 = 0
        var preempted: Int64 = 0
        var stall: (app: String?, seconds: Double)?
    }

    let clientName: String
    let sampleRate: Double
    let maximumFrames: Int
    private let offline: OfflineBackend
    private let server: Mutex<Server>
    /// Our ports by their short names (`APP.PORT`) the current plan exposes.
    private let registered = Mutex<Set<String>>([])

    var onConnectionChange: (@Sendable (String, String, Bool) -> Void)?
    var onOutsideConnection: (@Sendable (String, String) -> Void)?
    var onRegistration: (@Sendable (String) -> Void)?
    var onClientGone: (@Sendable (String) -> Void)?
    var onBufferSizeChange: (@Sendable (Int) -> Void)?

    /// A server with `system:capture_1…N` and `system:playback_1…N` (physical, audio).
    init(clientName: String = "iaa", sampleRate: Double = 48_000, frames: Int = 256, physicalChannels: Int = 2) {
        self.clientName = clientName
        self.sampleRate = sampleRate
        maximumFrames = frames
        offline = OfflineBackend(sampleRate: sampleRate, blockSize: frames)
        var initial = Server(bufferSize: frames)
        for channel in 1...max(physicalChannels, 1) {
            initial.ports.append(Port(name: "system:capture_\(channel)", isInput: false, isPhysical: true, isMIDI: false))
            initial.ports.append(Port(name: "system:playback_\(channel)", isInput: true, isPhysical: true, isMIDI: false))
        }
        server = Mutex(initial)
    }

    // MARK: What a test does as another program or as the server

    /// A client appears with audio ports `outputs` and `inputs` (short names), as a program that
    /// opens a JACK client, registers its ports and activates; `process` is what identifies it.
    /// `physical`: its ports say they are physical, as zita-njbridge's and a second sound card's do.
    func addClient(_ name: String, outputs: [String], inputs: [String] = [], process: ProcessIdentity? = nil, physical: Bool = false) {
        server.withLock { state in
            state.processes[name] = process
            state.ports += outputs.map { Port(name: "\(name):\($0)", isInput: false, isPhysical: physical, isMIDI: false) }
            state.ports += inputs.map { Port(name: "\(name):\($0)", isInput: true, isPhysical: physical, isMIDI: false) }
        }
        onRegistration?(name)
        for port in outputs + inputs { onRegistration?("\(name):\(port)") }
    }

    /// A client leaves (it exited, or was killed): its connections go, then its ports, then JACK
    /// says it is gone.
    func removeClient(_ name: String) {
        let broken: [[String]] = server.withLock { state in
            let ports = Set(state.ports.filter { $0.client == name }.map(\.name))
            let broken = state.connections.filter { ports.contains($0[0]) || ports.contains($0[1]) }
            state.connections.removeAll { ports.contains($0[0]) || ports.contains($0[1]) }
            state.ports.removeAll { $0.client == name }
            state.processes[name] = nil
            return broken
        }
        for pair in broken where isOurs(pair[0]) || isOurs(pair[1]) { onConnectionChange?(pair[0], pair[1], false) }
        onClientGone?(name)
    }

    /// The server dies: the engine sees `serverWasShutDown` on its next look.
    func shutDownServer() {
        server.withLock { $0.shutDown = true }
    }

    /// JACK's period changes (another client asked for it, or `jack_bufsize`).
    func changeBufferSize(to frames: Int) {
        server.withLock { $0.bufferSize = frames }
        onBufferSizeChange?(frames)
    }

    /// Cycles going wrong as JACK and the audio thread would tell them (xruns, a stall).
    func report(_ change: (inout CycleHealth) -> Void) {
        server.withLock { change(&$0.health) }
    }

    /// Every connection now, `[source, destination]`, in the order made.
    var allConnections: [[String]] { server.withLock { $0.connections } }

    /// Runs one cycle of the current plan; nil without one.
    @discardableResult
    func render(frames: Int) -> RenderPlan? {
        offline.renderCycle(frames: frames)
    }

    // MARK: LiveBackend

    func install(_ plan: RenderPlan) throws {
        offline.install(plan)
        let fresh: [Port] = registered.withLock { names in
            plan.externalPorts.filter { names.insert($0.shortName).inserted }.map {
                Port(name: fullName($0.shortName), isInput: $0.direction == .input, isPhysical: false, isMIDI: $0.kind == .midi)
            }
        }
        server.withLock { $0.ports += fresh }
        for port in fresh { onRegistration?(port.name) }
    }

    var currentPlan: RenderPlan? { offline.currentPlan }
    var currentBufferSize: Int { server.withLock { $0.bufferSize } }
    /// Cycles run when the test renders them, between commands: nothing plays while it waits.
    var renderedCycles: Int64? { nil }

    func injectMIDI(_ event: MIDIEvent, app: String) -> Bool { offline.injectMIDI(event, app: app) }

    func setPlaying(_ playing: Bool) {
        server.withLock { $0.rolling = playing }
        offline.setPlaying(playing)
    }

    func activate() throws { server.withLock { $0.active = true } }
    func close() { server.withLock { $0.active = false } }
    func abandon() { server.withLock { $0.active = false } }
    var serverWasShutDown: Bool { server.withLock { $0.shutDown } }

    /// Unregisters our ports the current plan no longer exposes (apps removed), as JACK's does.
    func collectRetiredPlans() {
        guard let plan = currentPlan else { return }
        let used = Set(plan.externalPorts.map(\.shortName))
        let gone: [String] = registered.withLock { names in
            let gone = names.subtracting(used)
            names.subtract(gone)
            return gone.map(fullName)
        }
        guard !gone.isEmpty else { return }
        let broken: [[String]] = server.withLock { state in
            let broken = state.connections.filter { gone.contains($0[0]) || gone.contains($0[1]) }
            state.connections.removeAll { gone.contains($0[0]) || gone.contains($0[1]) }
            state.ports.removeAll { gone.contains($0.name) }
            return broken
        }
        for pair in broken { onConnectionChange?(pair[0], pair[1], false) }
    }

    /// Our ports with their connections, and the latency ranges JACK's latency callback would
    /// leave on them: the plan's paths (``LatencyPaths``) from outside ports that add none.
    func livePorts() -> [LivePort] {
        guard let plan = currentPlan else { return [] }
        let state = server.withLock { $0 }
        let connected = plan.externalPorts.map { port in
            let name = fullName(port.shortName)
            return state.connections.contains { $0[0] == name || $0[1] == name }
        }
        let capture = plan.latencyPaths.captureRanges { connected[$0] ? 0...0 : nil }
        let playback = plan.latencyPaths.playbackRanges { connected[$0] ? 0...0 : nil }
        return plan.externalPorts.enumerated().compactMap { index, port in
            let name = fullName(port.shortName)
            guard state.ports.contains(where: { $0.name == name }) else { return nil }
            let isInput = port.direction == .input
            let connections = state.connections.compactMap { pair in isInput ? (pair[1] == name ? pair[0] : nil) : (pair[0] == name ? pair[1] : nil) }
            return LivePort(name: name, appID: port.appID, portName: port.portName,
                            type: port.kind == .midi ? "8 bit raw midi" : "32 bit float mono audio", isInput: isInput,
                            connections: connections, capture: capture[index] ?? 0...0, playback: playback[index] ?? 0...0)
        }
    }

    func allPortNames() -> [String] { server.withLock { $0.ports.map(\.name) } }

    func clientsWithPorts() -> [String] {
        var seen: Set<String> = []
        return allPortNames().compactMap { name in
            let client = Self.client(of: name)
            return seen.insert(client).inserted ? client : nil
        }
    }

    func audioPorts(ofClient name: String) -> (outputs: [String], inputs: [String]) {
        let ports = server.withLock { $0.ports.filter { $0.client == name && !$0.isMIDI } }
        return (ports.filter { !$0.isInput }.map(\.name), ports.filter(\.isInput).map(\.name))
    }

    /// The in-memory server's outside ports have no latency, so nothing feeding ours adds any.
    func captureLatency(ofPort shortName: String) -> Int { 0 }

    func connections(of port: String) -> [String] {
        server.withLock { state in
            state.connections.compactMap { $0[0] == port ? $0[1] : $0[1] == port ? $0[0] : nil }
        }
    }

    func isConnected(_ source: String, _ destination: String) -> Bool {
        server.withLock { $0.connections.contains([source, destination]) }
    }

    /// Connects as JACK does: both ports must exist, an output to an input of the same type.
    func connect(_ source: String, _ destination: String) -> ConnectionOutcome {
        let result: PortConnectionResult = server.withLock { state in
            guard let from = state.ports.first(where: { $0.name == source }), let to = state.ports.first(where: { $0.name == destination }) else {
                let missing = [source, destination].filter { name in !state.ports.contains { $0.name == name } }
                return .failed("no JACK port named \(missing.map { "'\($0)'" }.joined(separator: " or "))")
            }
            guard !from.isInput, to.isInput, from.isMIDI == to.isMIDI else { return .failed("JACK refused (error -1)") }
            guard !state.connections.contains([source, destination]) else { return .alreadyConnected }
            state.connections.append([source, destination])
            return .connected
        }
        if result == .connected {
            if isOurs(source) || isOurs(destination) {
                onConnectionChange?(source, destination, true)
            } else {
                onOutsideConnection?(source, destination)
            }
        }
        return ConnectionOutcome(source: source, destination: destination, result: result)
    }

    func connectPorts(_ pair: PortPair) -> PortConnectionResult { connect(pair.source, pair.destination).result }
    func disconnectPorts(_ pair: PortPair) -> Bool { disconnect(pair.source, pair.destination) }

    func disconnect(_ source: String, _ destination: String) -> Bool {
        let removed = server.withLock { state in
            guard let index = state.connections.firstIndex(of: [source, destination]) else { return false }
            state.connections.remove(at: index)
            return true
        }
        if removed, isOurs(source) || isOurs(destination) { onConnectionChange?(source, destination, false) }
        return removed
    }

    func resolve(_ endpoint: ExternalEndpoint) -> [String] {
        let ports = server.withLock { $0.ports }
        switch endpoint {
        case .port(let name): return ports.contains { $0.name == name } ? [name] : []
        case .physicalPlayback: return ports.filter { $0.isPhysical && $0.isInput && !$0.isMIDI }.map(\.name)
        case .physicalCapture: return ports.filter { $0.isPhysical && !$0.isInput && !$0.isMIDI }.map(\.name)
        case .physicalMIDICapture: return ports.filter { $0.isPhysical && !$0.isInput && $0.isMIDI }.map(\.name)
        }
    }

    func requestBufferSize(_ frames: Int) -> Bool {
        guard frames > 0, frames & (frames - 1) == 0 else { return false }
        changeBufferSize(to: frames)
        return true
    }

    func process(ofClient name: String) -> ProcessIdentity? { server.withLock { $0.processes[name] } }

    var transport: HostTransport {
        let state = server.withLock { $0 }
        var transport = offline.transport
        transport.isPlaying = state.rolling
        transport.isRecording = state.recording
        return transport
    }

    func startTransport() { setPlaying(true) }
    func stopTransport() { setPlaying(false) }

    func toggleRecording() -> Bool {
        server.withLock { state in
            state.recording.toggle()
            return state.recording
        }
    }

    func setDefaultTempo(_ tempo: Double, beatsPerBar: Double) { offline.setTempo(tempo, beatsPerBar: beatsPerBar) }

    func becomeTimebaseMaster(tempo: Double, beatsPerBar: Double) -> Bool {
        setDefaultTempo(tempo, beatsPerBar: beatsPerBar)
        return true
    }

    var cycleCount: Int64 { Int64(offline.cycleCount) }
    var xrunCount: Int64 { server.withLock { $0.health.xruns } }
    var ourXrunCount: Int64 { server.withLock { $0.health.ourXruns } }
    var preemptedOverrunCount: Int64 { server.withLock { $0.health.preempted } }
    var deadlineFaultCount: Int64 { 0 }
    var dspLoad: Double { 0 }
    var cycleTimes: CycleTimes { CycleTimes(cycles: cycleCount, median: 0, p99: 0, maximum: 0) }
    var stall: (app: String?, seconds: Double)? { server.withLock { $0.health.stall } }
    func takeBusyTimes() -> (last: Double, maximum: Double) { (0, 0) }
    func setMetering(_ on: Bool) { offline.metering = on }
    func setDeadlineShare(_ share: Double) {}
    /// The in-memory server renders on the caller's thread.
    func startCrew(threads: Int, splitting: CycleSplitting) throws(RenderCrew.CrewError) {}
    func updateSplit() {}
    var renderThreads: RenderThreads { .one }
    var realtimePriority: Int32? { nil }
    var audioThread: UInt { 0 }
    var probeCounts: (mallocs: Int, retains: Int)? { nil }

    private func isOurs(_ port: String) -> Bool { port.hasPrefix(clientName + ":") }

    /// The client of a full port name (`client:port`).
    static func client(of port: String) -> String {
        port.firstIndex(of: ":").map { String(port[..<$0]) } ?? port
    }
}
