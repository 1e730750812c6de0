import AudioGraph
import GraphFormat
import Foundation
import Nodes
import Testing

/// The smallest reproductions of what the graph fuzzer found, each once a crash, a hang or a
/// wrong error.
@Suite("Graph fuzz findings")
struct GraphFuzzRegressionTests {
    static func load(_ text: String) -> GraphLoadResult {
        GraphFile.load(text: text, file: "fuzz.json", registry: NodeRegistry(BuiltinNodes.types))
    }

    /// Loads `text` on a thread with a small stack, within `budget`: the hangs these found took
    /// minutes, and the budget leaves room for a machine busy with the other test lanes.
    static func loadOnSmallStack(_ text: String, budget: Duration = .seconds(20)) throws -> GraphLoadResult {
        let worker = FuzzWorker(stackSize: 512 << 10)
        defer { worker.stop() }
        let box = FuzzBox<GraphLoadResult>()
        let finished = worker.run(budget: budget) { box.value = Self.load(text) }
        try #require(finished, "took over \(budget)")
        return try #require(box.value)
    }

    static let header = #""format": "iaa-graph/1", "name": "x""#

    @Test("a long string of escapes reads in linear time")
    func longEscapedString() throws {
        // Seed 27979810 (big input 2) put a megabyte string in a plugin field: each escape copied
        // everything read before it, and the load took minutes.
        let name = String(repeating: #"a\n"#, count: 200_000)
        let result = try Self.loadOnSmallStack("{ \(Self.header), \"apps\": [ { \"id\": \"a\", \"plugin\": \"\(name)\" } ] }")
        #expect(result.errors.first?.code == .unknownPlugin)
    }

    @Test("a megabyte of spaces inside an unquoted word reads in linear time")
    func longRunOfSpacesInAWord() throws {
        // Seed 27979811 (big input 6) put a megabyte of spaces into an unquoted word: the reader
        // looked ahead over every space that followed each one, and the load took minutes.
        let word = "x" + String(repeating: " ", count: 1_000_000) + "y"
        let result = try Self.loadOnSmallStack("{ \(Self.header), \"apps\": [ { \"id\": \(word) } ] }")
        #expect(!result.errors.isEmpty)
    }

    @Test("tabs are whitespace in JSON, though YAML refuses them: a tab-indented graph loads, columns intact")
    func tabsAreWhitespace() throws {
        // Seed 27979810 turned a timeline into "\t{}", which Yams called a syntax error.
        #expect(Self.load("\t{}").errors.first?.code == .missingKey)
        let result = Self.load("{\t\(Self.header),\n\t\"apps\": [\n\t\t{ \"id\": \"a\", \"plugin\": \"builtin:gian\" } ] }")
        let error = try #require(result.errors.first)
        #expect("\(error.code):\(error.pointer):\(error.line ?? 0):\(error.column ?? 0)" == "unknownPlugin:/apps/0/plugin:3:26")
        // A raw tab inside a string is still an error (JSON wants \t).
        #expect(Self.load("{\(Self.header), \"apps\": [ { \"id\": \"a\tb\", \"plugin\": \"builtin:gain\" } ] }").graph == nil)
    }

    @Test("a key: value pair inside an array or outside any object is not JSON, though YAML reads it as a mapping")
    func pairsOutsideObjects() throws {
        let inArray = Self.load("{ \(Self.header), \"apps\": [\"id\": 1] }")
        #expect(inArray.graph == nil)
        let error = try #require(inArray.errors.first)
        #expect("\(error.code):\(error.line ?? 0):\(error.column ?? 0)" == "syntax:1:54", "\(error.formatted)")
        #expect(error.message == "':' inside an array: JSON arrays hold values, not key: value pairs")
        let bare = Self.load("\"format\": \"iaa-graph/1\"")
        #expect(bare.errors.first?.message == "':' outside any object: a JSON document is one value")
        // Colons inside strings are text.
        #expect(Self.load("{ \(Self.header), \"apps\": [ { \"id\": \"a\", \"plugin\": \"builtin:gain\" } ] }").graph != nil)
    }

    @Test("an app id of the wrong type beside an Inter-App Audio connection is an error, not a crash")
    func wrongTypeIdBeforeHost() {
        // The unfinished first app used to be dropped from the graph, shifting the indices the
        // connection held past the end of its apps.
        let result = Self.load("""
            { \(Self.header), "apps": [
              { "id": 1, "plugin": "builtin:gain" },
              { "id": "host", "role": "host", "plugin": "builtin:mixer" },
              { "id": "node", "role": "node", "plugin": "builtin:oscillator" } ],
              "connections": [ { "from": "node:out", "to": "host:in_1" } ] }
            """)
        #expect(result.graph == nil)
        #expect(result.errors.map { "\($0.code):\($0.pointer):\($0.line ?? 0)" } 
            == ["wrongType:/apps/0/id:2", "missingComponent:/apps/2/role:4"])
    }

    @Test("DEL, C1 controls and Unicode line separators are string content, as JSON says")
    func rawScalarsInStrings() throws {
        let name = "a\u{7F}b\u{85}c\u{2028}d\u{2029}e\u{9F}f"
        let result = Self.load(#"{ "format": "iaa-graph/1", "name": "\#(name)", "apps": [] }"#)
        #expect(result.diagnostics.map(\.formatted) == [])
        #expect(try #require(result.graph).name == name)
        let key = Self.load("{ \(Self.header), \"apps\": [], \"k\u{2028}\u{7F}\": 1 }")
        #expect(key.errors.map(\.code) == [.unknownKey])
        #expect(key.errors.first?.pointer == "/k\u{2028}\u{7F}")
    }

    @Test("a line break between a key and its colon is JSON")
    func lineBreakBeforeColon() {
        let result = Self.load("{ \"format\"\r\n : \"iaa-graph/1\", \"name\"\n: \"x\", \"apps\"\r: [] }")
        #expect(result.diagnostics.map(\.formatted) == [])
        #expect(result.graph != nil)
    }

    @Test("a key longer than libyaml's 1024 characters is an unknown key where it was written")
    func longKey() {
        let key = String(repeating: "k", count: 1 << 20)
        let result = Self.load("{ \(Self.header),\n  \"apps\": [], \"\(key)\": 1 }")
        #expect(result.errors.map(\.code) == [.unknownKey])
        #expect(result.errors.map { "\($0.line ?? 0):\($0.column ?? 0)" } == ["2:15"])
        #expect(result.errors.first?.pointer == "/" + key)
    }

    @Test("10,000 levels of nesting are a located syntax error, not a stack overflow")
    func deepNesting() throws {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let deep = String(repeating: open, count: 10_000) + "1" + String(repeating: close, count: 10_000)
            let result = try Self.loadOnSmallStack("{ \(Self.header), \"apps\": \(deep) }")
            #expect(result.errors.map(\.code) == [.syntax])
            #expect(result.errors.first?.message == "arrays and objects nest deeper than 512 levels")
            #expect(result.errors.first?.line == 1)
        }
    }

    @Test("a megabyte plugin name is an unknown plugin, found in time")
    func megabytePlugin() throws {
        let plugin = String(repeating: "p", count: 1 << 20)
        let result = try Self.loadOnSmallStack("{ \(Self.header), \"apps\": [ { \"id\": \"a\", \"plugin\": \"\(plugin)\" } ] }")
        #expect(result.errors.map(\.code) == [.unknownPlugin])
    }

    @Test("a chain of 2,000 apps loads on a small stack")
    func longChain() throws {
        // The cycle check searched depth first by recursion, one frame per app of the chain.
        let count = 2_000
        let apps = (0..<count).map { "{ \"id\": \"n\($0)\", \"plugin\": \"builtin:gain\" }" }.joined(separator: ",\n")
        let connections = (1..<count).map { "{ \"from\": \"n\($0 - 1):out\", \"to\": \"n\($0):in\" }" }
        let cycle = "{ \"from\": \"n\(count - 1):out\", \"to\": \"n0:in\" }"
        let chain = try Self.loadOnSmallStack("{ \(Self.header), \"apps\": [\(apps)], \"connections\": [\(connections.joined(separator: ","))] }")
        #expect(chain.diagnostics.map(\.formatted) == [])
        let looped = try Self.loadOnSmallStack("{ \(Self.header), \"apps\": [\(apps)], \"connections\": [\((connections + [cycle]).joined(separator: ","))] }")
        #expect(looped.errors.map(\.code) == [.cycle])
    }

    @Test("a character libyaml refuses outside a string is located")
    func readerErrorLocated() {
        let result = Self.load("{ \(Self.header),\n  \"apps\": [] \u{7F} }")
        #expect(result.errors.map(\.code) == [.syntax])
        #expect(result.errors.map { "\($0.line ?? 0):\($0.column ?? 0)" } == ["2:14"])
    }
}
