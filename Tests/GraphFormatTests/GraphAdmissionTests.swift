import AudioGraph
import GraphFormat
import AudioSession
import Nodes
import Testing

/// `programs.admit`: programs the graph does not name, admitted as program apps while it runs
/// (docs/programs.md). The block's checks, and the graph edits that add and remove such apps.
@Suite("Admitting programs the graph does not name")
struct GraphAdmissionTests {
    static func graph(admit: String, apps: String = "") -> String {
        """
        { "format": "iaa-graph/1", "name": "x",
          "apps": [
            { "id": "mic", "plugin": "builtin:oscillator" },
            { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } },
            { "id": "daw", "role": "host", "plugin": "builtin:mixer", "session": { "category": "playback", "options": ["mixWithOthers"], "active": true },
              "entitlements": ["inter-app-audio"], "backgroundModes": ["audio"] }\(apps) ],
          "connections": [ { "from": "mic:out", "to": "mix:in_1" } ],
          "jack": { "expose": ["mix:out"] },
          "programs": { "admit": \(admit) } }
        """
    }

    static func load(_ text: String) -> GraphLoadResult {
        GraphFile.load(text: text, file: "x.json", registry: NodeRegistry(BuiltinNodes.types))
    }

    static let valid = #"""
        { "jackClient": "mpv*", "uid": 1000, "outputs": 2, "inputs": 1, "directConnections": "allow",
          "session": { "category": "playback", "options": ["mixWithOthers"], "active": true }, "backgroundModes": ["audio"],
          "entitlements": ["microphone"], "to": ["mix:in_1", "mix:in_2"], "from": "mic:out", "limit": 3 }
        """#

    @Test("the block becomes the graph's admission: restrictions, channels, session, ports and limit")
    func validBlock() throws {
        let result = Self.load(Self.graph(admit: Self.valid))
        let graph = try #require(result.graph, "\(result.diagnostics.map(\.formatted))")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.formatted))")
        let admission = try #require(graph.admission)
        #expect(admission.binding == ProgramBinding(jackClient: "mpv*", uid: 1000, outputs: 2, inputs: 1, directConnections: .allow,
                                                    admitted: true))
        #expect(admission.session.category == .playback)
        #expect(admission.session.active)
        #expect(admission.session.backgroundModes == [.audio])
        #expect(admission.session.entitlements == [.microphone])
        #expect(admission.to == [PortAddress(app: 1, port: 0), PortAddress(app: 1, port: 1)])
        #expect(admission.from == [PortAddress(app: 0, port: 0)])
        #expect(admission.limit == 3)
        let without = Self.load(#"{ "format": "iaa-graph/1", "name": "x", "apps": [], "programs": {} }"#)
        #expect(without.diagnostics.isEmpty, "\(without.diagnostics.map(\.formatted))")
        #expect(without.graph?.admission == nil)
    }

    @Test("an admitted app is added after every app with its connections and program ends, and removed leaving the rest as it was")
    func admitAndRemove() throws {
        let graph = try #require(Self.load(Self.graph(admit: Self.valid)).graph)
        let admission = try #require(graph.admission)
        let first = admission.app(id: "mpv", jackClient: "mpv", type: ProgramNode.nodeType)
        #expect(first.program?.admitted == true)
        #expect(first.program?.jackClient == "mpv")
        #expect(first.session?.id == "mpv")
        let one = try graph.admitting(first).get()
        let second = admission.app(id: ProgramAdmission.appID(for: "mpv") { one.appIndex($0) != nil }, jackClient: "mpv", type: ProgramNode.nodeType)
        #expect(second.id == "mpv-2")
        let two = try one.admitting(second).get()
        #expect(two.apps.map(\.id) == ["mic", "mix", "daw", "mpv", "mpv-2"])
        #expect(two.admittedApps.map(\.id) == ["mpv", "mpv-2"])
        let names = two.connections.map { two.describe($0) }
        #expect(names == ["mic:out -> mix:in_1", "mpv:out_1 -> mix:in_1", "mpv:out_2 -> mix:in_2", "mic:out -> mpv:in_1",
                          "mpv-2:out_1 -> mix:in_1", "mpv-2:out_2 -> mix:in_2", "mic:out -> mpv-2:in_1"])
        // The app is rendered after what it records and before where it is heard.
        #expect(two.order.firstIndex(of: 0)! < two.order.firstIndex(of: 3)!)
        #expect(two.order.firstIndex(of: 3)! < two.order.firstIndex(of: 1)!)
        // Under a selective jack.expose, its program ends are JACK ports (its out_K are not).
        let plan = PlanCompiler.compile(two, slots: try NodeInstances(sampleRate: 48_000, maximumFrames: 64).slots(for: two),
                                        sampleRate: 48_000, maximumFrames: 64, generation: 1)
        let exposed = Set(plan.externalPorts.map(\.shortName))
        #expect(exposed.isSuperset(of: ["mpv.play_1", "mpv.play_2", "mpv.capture_1", "mpv-2.play_1", "mix.out"]), "\(exposed)")
        #expect(!exposed.contains("mpv.out_1"))

        let back = two.removingAdmitted(["mpv"])
        #expect(back.apps.map(\.id) == ["mic", "mix", "daw", "mpv-2"])
        #expect(back.connections.map { back.describe($0) } == ["mic:out -> mix:in_1", "mpv-2:out_1 -> mix:in_1", "mpv-2:out_2 -> mix:in_2",
                                                               "mic:out -> mpv-2:in_1"])
        let backPlan = PlanCompiler.compile(back, slots: try NodeInstances(sampleRate: 48_000, maximumFrames: 64).slots(for: back),
                                            sampleRate: 48_000, maximumFrames: 64, generation: 2)
        #expect(Set(backPlan.externalPorts.map(\.shortName)) == ["mix.out", "mpv-2.play_1", "mpv-2.play_2", "mpv-2.capture_1"])
        // Only admitted apps are removed: a graph's own app of that id stays.
        #expect(back.removingAdmitted(["mix"]).apps.map(\.id) == back.apps.map(\.id))
    }

    @Test("app ids for programs: what an id may not hold becomes '-', a number follows a taken one")
    func appIDs() {
        #expect(ProgramAdmission.appID(for: "mpv") { _ in false } == "mpv")
        #expect(ProgramAdmission.appID(for: "Firefox (PID 12)") { _ in false } == "Firefox--PID-12-")
        #expect(ProgramAdmission.appID(for: "") { _ in false } == "program")
        #expect(ProgramAdmission.appID(for: "mix") { ["mix", "mix-2"].contains($0) } == "mix-3")
    }

    @Test("mistakes in programs.admit are located errors that say how to fix them")
    func mistakes() {
        let cases: [(block: String, expected: [String])] = [
            (#"{ "to": "mix:in_1" }"#, ["missingKey /programs/admit/jackClient", "missingKey /programs/admit/session"]),
            (#"{ "jackClient": "a:b", "session": {}, "to": "mix:in_1" }"#, ["invalidValue /programs/admit/jackClient"]),
            (#"{ "jackClient": "*", "session": {} }"#, ["missingKey /programs/admit/to"]),
            (#"{ "jackClient": "*", "session": {}, "to": "mix:in_9" }"#, ["unknownPort /programs/admit/to"]),
            (#"{ "jackClient": "*", "session": {}, "to": ["mix:in_1", 3] }"#, ["wrongType /programs/admit/to/1"]),
            (#"{ "jackClient": "*", "session": {}, "to": [] }"#, ["wrongType /programs/admit/to"]),
            (#"{ "jackClient": "*", "session": {}, "to": "mix:out" }"#, ["wrongDirection /programs/admit/to"]),
            (#"{ "jackClient": "*", "session": {}, "to": "daw:in_1" }"#, ["notANode /programs/admit/to"]),
            (#"{ "jackClient": "*", "session": {}, "to": ["mix:in_1", "mix:in_2", "mix:in_1"] }"#, ["invalidValue /programs/admit/to"]),
            (#"{ "jackClient": "*", "session": {}, "to": "mix:in_1", "from": "mic:out" }"#, ["invalidValue /programs/admit/from"]),
            (#"{ "jackClient": "*", "session": {}, "to": "mix:in_1", "inputs": 1, "from": "mix:out" }"#, ["cycle /programs/admit/from"]),
            (#"{ "jackClient": "*", "session": {}, "to": "mix:in_1", "limit": 0, "state": "foreground", "colour": 1 }"#,
             ["outOfRange /programs/admit/limit", "invalidValue /programs/admit/state", "unknownKey /programs/admit/colour"]),
            (#"{ "jackClient": "*", "session": { "category": "ambient", "active": true }, "to": "mix:in_1" }"#,
             ["incompatibleCategory /programs/admit/session/category"]),
            (#"{ "jackClient": "*", "session": { "category": "playback", "active": true }, "to": "mix:in_1" }"#,
             ["missingEntitlement /programs/admit/session/active"]),
            (#"{ "jackClient": "*", "session": { "category": "loud" }, "to": "mix:in_1", "backgroundModes": ["audi"] }"#,
             ["invalidValue /programs/admit/session/category", "invalidValue /programs/admit/backgroundModes/0"]),
            (#""all""#, ["wrongType /programs/admit"]),
        ]
        for (block, expected) in cases {
            let result = Self.load(Self.graph(admit: block))
            let found = result.diagnostics.filter(\.isError).map { "\($0.code.rawValue) \($0.pointer)" }
            #expect(result.graph == nil, "\(block) validated")
            for item in expected {
                #expect(found.contains(item), "\(block): \(item) missing from \(found)")
            }
            #expect(result.diagnostics.filter(\.isError).allSatisfy { $0.hint != nil || $0.code == .wrongType || $0.code == .unknownPort },
                    "\(block): an error without a hint: \(result.diagnostics.map(\.formatted))")
        }
    }

    @Test("a grants file in force must allow every admitted app's entitlements to \"*\"")
    func grants() {
        let text = Self.graph(admit: Self.valid)
        let strict = Grants(file: "g.json", allowed: ["mpv": [.microphone], "daw": [.interAppAudio]])
        let refused = GraphFile.load(text: text, file: "x.json", registry: NodeRegistry(BuiltinNodes.types), grants: strict).diagnostics
        #expect(refused.map { "\($0.code.rawValue) \($0.pointer)" } == ["missingEntitlement /programs/admit/entitlements/0"])
        let open = Grants(file: "g.json", allowed: ["*": [.microphone], "daw": [.interAppAudio]])
        #expect(GraphFile.load(text: text, file: "x.json", registry: NodeRegistry(BuiltinNodes.types), grants: open).graph != nil)
    }
}
