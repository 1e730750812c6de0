import AudioGraph
import AudioSession
import ControlSocket
import Engine
import Foundation
import Testing
import TestKit

/// PROTOCOL.md against the typed vocabulary: it documents every method and every code the
/// transport and the engine answer with, and nothing they do not.
@Suite("PROTOCOL.md and the protocol's vocabulary")
struct ProtocolVocabularyTests {
    static let document: String = {
        (try? String(contentsOfFile: Repository.path("Sources/ControlSocket/PROTOCOL.md"), encoding: .utf8)) ?? ""
    }()

    /// The backticked names in the first column of the table that follows the line containing `heading`.
    static func firstColumn(after heading: String) -> Set<String> {
        let lines = document.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.contains(heading) }) else { return [] }
        var names: Set<String> = []
        var inTable = false
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("|") else {
                if inTable { break }
                continue
            }
            inTable = true
            let cell = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for part in cell.split(separator: "`").enumerated() where part.offset % 2 == 1 {
                names.insert(String(part.element))
            }
        }
        return names
    }

    @Test("the methods table lists exactly the methods the engine answers")
    func methods() {
        let documented = Self.firstColumn(after: "| method | params | result |")
        #expect(documented == Set(ControlMethod.allCases.map(\.rawValue)),
                "missing: \(Set(ControlMethod.allCases.map(\.rawValue)).subtracting(documented)), extra: \(documented.subtracting(ControlMethod.allCases.map(\.rawValue)))")
    }

    @Test("the transport's and the engine's error tables list exactly their codes")
    func errorCodes() {
        #expect(Self.firstColumn(after: "## Errors the transport itself answers") == Set(TransportErrorCode.allCases.map(\.rawValue)))
        #expect(Self.firstColumn(after: "The engine's own codes:") == Set(EngineErrorCode.allCases.map(\.rawValue)))
    }

    @Test("every code a table of PROTOCOL.md names is one the engine can answer with")
    func noCodeNothingEmits() {
        let known = Set(TransportErrorCode.allCases.map(\.rawValue) + EngineErrorCode.allCases.map(\.rawValue)
            + GraphErrorCode.allCases.map(\.rawValue) + SessionError.Code.allCases.map(\.rawValue))
        let tables = Self.firstColumn(after: "## Errors the transport itself answers")
            .union(Self.firstColumn(after: "The engine's own codes:"))
            .union(Self.firstColumn(after: "fades in. Errors, each changing nothing:"))
        #expect(tables.subtracting(known).isEmpty, "\(tables.subtracting(known))")
    }

    @Test("the top row documents every member TopUpdate writes and every state it may carry, and a line reads back as written")
    func topUpdate() throws {
        let row = try #require(Self.document.components(separatedBy: "\n").first { $0.hasPrefix("| `top` |") })
        let sample = TopUpdate(time: 1.5, period: 0.005, busy: 0.1, busyMax: 0.2, dspLoad: 3, xruns: 2, ourXruns: 1,
                               apps: TopUpdate.State.allCases.enumerated().map { index, state in
                                   .init(id: "a\(index)", busy: 0.01, peak: index == 0 ? nil : -6, gain: 0.5, state: state)
                               })
        guard case .object(let members) = sample.json, case .array(let apps)? = sample.json["apps"],
              case .object(let appMembers)? = apps.first else {
            Issue.record("TopUpdate.json is not an object with apps")
            return
        }
        for key in members.map(\.0) + appMembers.map(\.0) { #expect(row.contains("\"\(key)\""), "PROTOCOL.md's top row lacks \"\(key)\"") }
        for state in TopUpdate.State.allCases { #expect(row.contains("\"\(state.rawValue)\""), "PROTOCOL.md's top row lacks \"\(state.rawValue)\"") }
        #expect(TopUpdate(json: sample.json) == sample)
        #expect(TopUpdate(json: try ControlJSONParser.parse(sample.json.text)) == sample)
        // Exact silence is null, not a number a script would read as a level.
        #expect(apps.first?["peak"] == .null && apps.dropFirst().first?["peak"]?.doubleValue == -6)
    }

    @Test("the ports row documents every member PortListing writes, and a port reads back as written")
    func portListing() throws {
        let row = try #require(Self.document.components(separatedBy: "\n").first { $0.hasPrefix("| `ports` |") })
        let port = PortListing(name: "iaa:tone.out", app: "tone", port: "out", type: "32 bit float mono audio", direction: .output,
                               connections: ["system:playback_1"], capture: 0...0, playback: 256...512)
        guard case .object(let members) = port.json, case .object(let latency)? = port.json["latency"] else {
            Issue.record("PortListing.json is not an object with a latency object")
            return
        }
        for key in members.map(\.0) + latency.map(\.0) { #expect(row.contains("\"\(key)\""), "PROTOCOL.md's ports row lacks \"\(key)\"") }
        for direction in ["input", "output"] { #expect(row.contains("\"\(direction)\"")) }
        #expect(PortListing(json: port.json) == port)
    }

    @Test("the get row documents every member ParameterReading writes; every unit a parameter can have has a symbol or none on purpose")
    func parameterReading() throws {
        let row = try #require(Self.document.components(separatedBy: "\n").first { $0.hasPrefix("| `get` |") })
        let reading = ParameterReading(app: "tone", parameters: [.init(name: "frequency", value: 440, min: 20, max: 20000, defaultValue: 440, unit: "hertz")])
        guard case .object(let members) = reading.json, case .array(let parameters)? = reading.json["parameters"],
              case .object(let parameterMembers)? = parameters.first else {
            Issue.record("ParameterReading.json is not an object with parameters")
            return
        }
        for key in members.map(\.0) + parameterMembers.map(\.0) { #expect(row.contains("\"\(key)\""), "PROTOCOL.md's get row lacks \"\(key)\"") }
        #expect(ParameterReading(json: reading.json) == reading)
        let symbols = ["generic": "", "hertz": "Hz", "linearGain": "linear gain", "decibels": "dB", "seconds": "s",
                       "milliseconds": "ms", "percent": "%", "boolean": ""]
        for (unit, symbol) in symbols {
            #expect(ParameterReading.Parameter(name: "p", value: 0, min: 0, max: 1, defaultValue: 0, unit: unit).symbol == symbol)
        }
    }

    @Test("the apply row documents every member ApplyReply writes, and a reply reads back as written")
    func applyReply() throws {
        let row = try #require(Self.document.components(separatedBy: "\n").first { $0.hasPrefix("| `apply` |") })
        let reply = ApplyReply(applied: true, diff: .init(appsAdded: ["echo"], connectionsAdded: ["echo:out -> daw:in_2 (gain 0.5)"],
                                                            exposeChanged: true), warnings: ["a warning"])
        guard case .object(let members) = reply.json, case .object(let diffMembers)? = reply.json["diff"] else {
            Issue.record("ApplyReply.json is not an object with a diff object")
            return
        }
        for key in members.map(\.0) + diffMembers.map(\.0) { #expect(row.contains("\"\(key)\""), "PROTOCOL.md's apply row lacks \"\(key)\"") }
        #expect(ApplyReply(json: reply.json) == reply)
    }

    /// A status with every member the engine may write filled in.
    static var fullStatus: StatusReply {
        var jack = JackStatus(server: "default", client: "iaa")
        jack.stalled = .init(app: "synth", seconds: 1.5, reason: "the audio thread is stuck in synth's process call")
        var app = AppStatus(id: "rear", role: "app", plugin: "builtin:program")
        app.component = "auri/poly/iaas"
        app.hosts = ["daw"]
        app.fault = .init(kind: "deadline", action: "bypassed", reason: "over budget")
        app.isolation = .init(state: .off, pid: 42, restarts: 3, lateCycles: 1, restrictions: ["seccomp"],
                              fault: .init(kind: "crashed", signal: "SIGSEGV", reason: "killed"), note: "iaa enable rear")
        app.library = .init(path: "/lib/x.so", identity: "1:2:3:4", rebuilt: true)
        app.outputs = [.init(name: "latency", value: 64)]
        app.latency = .init(own: 64, arrival: 0, output: 64, outside: 0, compensation: [.init(from: "a:out", to: "rear:in", delay: 64)])
        var session = SessionStatus(category: "playback", mode: "default", options: ["mixWithOthers"])
        session.backgroundTimeRemaining = 10
        app.session = session
        app.program = .init(jackClient: "mpv*", admitted: false, running: true, directConnections: "undo",
                            clients: [.init(name: "mpv", pid: 7, ports: [ConnectionEnds(from: "mpv:out_0", to: "iaa:rear.in_1")], unrouted: ["mpv:out_1"])],
                            refused: [.init(name: "mpv-2", pid: 8, reason: "another uid")], attached: 7)
        var link = AppStatus.Link(direction: "receive", address: "0.0.0.0:30100", channels: 2, bridge: "zita-n2j", client: "rear-link")
        link.since = 1
        link.pid = 9
        link.lockedAfter = 0.75
        link.sender = .init(address: "192.168.1.20", channels: 2, sampleRate: 48_000)
        link.resampler = .init(error: -0.3, ratio: 1.00001, fewestFrames: 251)
        link.lastExit = "zita-n2j was killed by signal 9"
        link.lastMessage = "Receiving."
        app.link = link
        let start = KeptStateStatus.Start(outcome: .fileChanged, replayed: 2, dropped: ["an app"], discarded: ["a record"])
        return StatusReply(
            graph: "studio", jack: jack, render: .init(threads: 2, split: true, workers: [.init(steps: 10, busy: 12.5)]),
            apps: [app], interruption: true,
            jackConnections: [.init(from: "iaa:rear.out_1", to: "system:playback_1", rule: "rear:out_1 -> @playback", program: "rear")],
            rules: [.init(rule: "rear:out_1 -> @playback", state: .pending, waitingFor: "@playback",
                          connections: [.init(from: "iaa:rear.out_1", to: "system:playback_1", made: false)])],
            programs: .init(admit: .init(jackClient: "mpv*", uid: 1000, executable: "/usr/bin/mpv", outputs: 2, inputs: 0,
                                         to: ["mix:in_1"], from: [], limit: 8),
                            admitted: ["mpv"], refused: [.init(name: "x", pid: nil, reason: "limit")]),
            satellite: .init(primary: "ssh://head/run/iaa.sock", state: .joined, since: 3, reason: "joined", joins: 1, apps: ["nav"]),
            state: .init(journal: .init(folder: "/state", lastChange: 5, sinceSnapshot: 2, refusing: "full", start: start)))
    }

    /// Every member name in `json` and the objects and arrays under it, but not under `outputs`
    /// (its members are a plugin's symbols).
    static func memberNames(_ json: ControlJSON) -> Set<String> {
        switch json {
        case .object(let members):
            return members.reduce(into: Set(members.map(\.0))) { names, member in
                if member.0 != "outputs" { names.formUnion(memberNames(member.1)) }
            }
        case .array(let elements): return elements.reduce(into: []) { $0.formUnion(memberNames($1)) }
        default: return []
        }
    }

    @Test("the status row, App, Rule and Link document every member StatusReply writes, and a status reads back as written")
    func statusReply() throws {
        let lines = Self.document.components(separatedBy: "\n")
        let row = try #require(lines.first { $0.hasPrefix("| `status` |") })
        let app = try #require(lines.first { $0.hasPrefix("**App** is") })
        let paragraphs = Self.document.components(separatedBy: "\n\n")
        let rule = try #require(paragraphs.first { $0.hasPrefix("**Rule** is") })
        let link = try #require(paragraphs.first { $0.contains("Its **Link** in `status` is") })
        let documented = [row, app, rule, link].joined(separator: "\n")
        let status = Self.fullStatus
        for key in Self.memberNames(status.json).sorted() {
            #expect(documented.contains("\"\(key)\""), "PROTOCOL.md documents no \"\(key)\" for status")
        }
        for state in RuleStatus.State.allCases { #expect(rule.contains("`\(state.rawValue)`"), "Rule lacks state \(state.rawValue)") }
        for state in SatelliteStatus.State.allCases { #expect(row.contains("\"\(state.rawValue)\"")) }
        for state in AppStatus.Link.State.allCases { #expect(link.contains("\"\(state.rawValue)\""), "Link lacks state \(state.rawValue)") }
        for state in AppStatus.Isolation.State.allCases { #expect(app.contains("\"\(state.rawValue)\""), "App lacks isolation state \(state.rawValue)") }
        for outcome in KeptStateStatus.Start.Outcome.allCases { #expect(row.contains("\"\(outcome.rawValue)\"")) }
        #expect(StatusReply(json: status.json) == status)
        #expect(StatusReply(json: try ControlJSONParser.parse(status.json.text)) == status)
        #expect(StatusReply(json: StatusReply(graph: "g", jack: .init(server: "s", client: "c")).json)?.state.journal == nil)
    }

    @Test("the program.attach row documents every member of its first reply and its decision lines, and its lines read back as written")
    func programStream() throws {
        let row = try #require(Self.document.components(separatedBy: "\n").first { $0.hasPrefix("| `program.attach` |") })
        let attach = ProgramAttachReply(app: "nav", pid: 42, session: SessionStatus(category: "playback", mode: "default", options: []))
        let decision = ProgramDecision(app: "nav", gain: 0.25, active: true, ducked: true, interrupted: false)
        let event = SessionEventMessage(app: "nav", name: "interruption", type: "began", options: [], reason: "default")
        let lines: [ProgramStreamLine] = [.decision(decision, at: 1.5), .event(event, at: 2)]
        guard case .object(let first) = attach.json, case .object(let decided) = decision.json else {
            Issue.record("the program stream's messages are not objects")
            return
        }
        for key in first.map(\.0) + decided.map(\.0) + ["t", "decision", "event"] {
            #expect(row.contains("\"\(key)\""), "PROTOCOL.md's program.attach row lacks \"\(key)\"")
        }
        #expect(ProgramAttachReply(json: attach.json) == attach)
        #expect(ProgramAttachReply(json: ProgramAttachReply(app: "x", pid: 1, session: nil).json)?.session == nil)
        for line in lines { #expect(ProgramStreamLine(json: try ControlJSONParser.parse(line.json.text)) == line) }
    }

    @Test("the dump and session.get rows document every member their replies write, and they read back as written")
    func dumpAndSessionReplies() throws {
        let lines = Self.document.components(separatedBy: "\n")
        let dumpRow = try #require(lines.first { $0.hasPrefix("| `dump` |") })
        // Its apps are App, checked with status.
        let dump = DumpReply(graph: "studio", apps: [], connections: [.init(from: "a:out", to: "b:in", gain: 0.5)],
                             jackConnections: [ConnectionEnds(from: "iaa:b.out", to: "system:playback_1")],
                             policy: .init(duckLevel: -12, rampTime: 0.05, backgroundTaskTime: 180), tempo: 120, beatsPerBar: 4,
                             device: .init(silent: false, locked: true, routeAvailable: true))
        for key in Self.memberNames(dump.json).sorted() {
            #expect(dumpRow.contains("\"\(key)\""), "PROTOCOL.md documents no \"\(key)\" for dump")
        }
        #expect(DumpReply(json: try ControlJSONParser.parse(dump.json.text)) == dump)
        var full = dump
        full.apps = Self.fullStatus.apps
        #expect(DumpReply(json: try ControlJSONParser.parse(full.json.text)) == full)
        #expect(GraphFileReply(json: GraphFileReply(file: "{}\n").json)?.file == "{}\n")
        #expect(dumpRow.contains("\"file\""))
        let getRow = try #require(lines.first { $0.hasPrefix("| `session.get` |") })
        let reply = SessionGetReply(app: "nav", session: SessionStatus(category: "playback", mode: "voicePrompt", options: ["duckOthers"]))
        for key in ["app", "session"] { #expect(getRow.contains("\"\(key)\"")) }
        #expect(SessionGetReply(json: try ControlJSONParser.parse(reply.json.text)) == reply)
    }
}
