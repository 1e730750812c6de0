import AudioGraph
import GraphFormat
import Testing
import TestKit

@Suite("Graph decoding")
struct GraphDecoderTests {
    @Test("trailing commas, comments and duplicate keys are located errors in JSON")
    func strictJSON() {
        let result = TestSupport.load(json: """
            {
              "format": "iaa-graph/1", # a comment
              "name": "x",
              "name": "y",
              "apps": [ { "id": "a", "plugin": "builtin:gain", }, ]
            }
            """)
        #expect(result.errors.map(\.code) == [.syntax, .duplicateKey, .syntax, .syntax])
        #expect(result.errors.map { "\($0.line ?? 0):\($0.column ?? 0)" } == ["2:28", "4:3", "5:50", "5:53"])
        #expect(result.errors.map(\.pointer) == ["", "/name", "/apps/0", "/apps"])
        #expect(result.description == nil)
    }

    @Test("plain scalars are only true, false, null and JSON numbers")
    func plainScalars() {
        let result = TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": x, "apps": [
              { "id": "g", "plugin": "builtin:gain", "params": { "gain": .5 } } ],
              "connections": yes }
            """)
        // `yes` is kept as the string it looks like, so "connections" is also the wrong type.
        #expect(result.errors.map(\.code) == [.syntax, .syntax, .syntax, .wrongType])
        #expect(result.errors.map(\.pointer) == ["/name", "/apps/0/params/gain", "/connections", "/connections"])
    }

    @Test("object keys must be double-quoted strings")
    func keys() {
        let result = TestSupport.load(json: #"{ format: "iaa-graph/1", "name": "x", "apps": [] }"#)
        #expect(result.errors.first?.message == "object keys must be double-quoted strings")
        #expect(result.errors.first?.column == 3)
    }

    @Test("a YAML syntax error becomes a located diagnostic")
    func syntaxError() throws {
        let result = TestSupport.load(json: "{ \"format\": \"iaa-graph/1\",\n  \"name\": [ }")
        let error = try #require(result.errors.first)
        #expect(error.code == .syntax && error.line == 2)
        #expect(result.errors.count == 1)
    }

    @Test("the document must be an object, and an empty file is an error")
    func documentShape() {
        #expect(TestSupport.load(json: "[1, 2]").errors.map(\.code) == [.wrongType])
        #expect(TestSupport.load(json: "").errors.map(\.code) == [.syntax])
    }

    @Test("files named .yaml may be written as YAML")
    func yaml() throws {
        let text = """
            format: iaa-graph/1
            name: yaml
            apps:
              - id: tone
                plugin: builtin:oscillator
                params: { frequency: 220 }
            # comments are fine here
            """
        let result = GraphFile.load(text: text, file: "graph.yaml", registry: TestSupport.registry)
        #expect(result.diagnostics.isEmpty)
        #expect(try #require(result.graph).apps[0].parameters == [220, 0.5])
    }

    @Test("a missing file is an io diagnostic naming the path as given")
    func missingFile() {
        let result = GraphFile.load(path: "no/such/graph.json", registry: TestSupport.registry)
        #expect(result.graph == nil && result.description == nil)
        #expect(result.errors.map(\.headline) == ["no/such/graph.json: error[io]: no such file"])
    }

    @Test("load(path:) reads a file from disk")
    func loadsFromDisk() throws {
        let path = Repository.path("graphs/thru.json")
        let result = GraphFile.load(path: path, registry: TestSupport.registry)
        #expect(result.diagnostics.isEmpty)
        let graph = try #require(result.graph)
        #expect(graph.order == [0, 1])
        #expect(result.description?.jackClientName == "iaa-thru")
    }

    @Test("wrong JSON types and missing keys are reported with their pointers")
    func types() {
        let result = TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": 3, "apps": [ 7, { "plugin": "builtin:gain", "entitlements": ["microphone", 1] } ],
              "connections": {}, "jack": { "client": "iaa", "connections": [ { "from": "g:out" } ] } }
            """)
        #expect(result.errors.map(\.pointer) == [
            "/name", "/apps/0", "/apps/1/id", "/apps/1/entitlements/1", "/connections", "/jack/connections/0/to",
        ])
        #expect(result.errors.map(\.code) == [.wrongType, .wrongType, .missingKey, .wrongType, .wrongType, .missingKey])
    }

    @Test("pointers escape '/' and '~' in keys as RFC 6901 says")
    func pointerEscapes() {
        let result = TestSupport.load(json: #"{ "format": "iaa-graph/1", "name": "x", "apps": [], "a/b~c": 1 }"#)
        #expect(result.errors.map(\.pointer) == ["/a~1b~0c"])
        #expect(result.errors.first?.column == 53)
    }

    @Test("a refused graph throws every diagnostic")
    func throwsGraphError() {
        let result = TestSupport.load(json: #"{ "format": "iaa-graph/1", "name": "x", "apps": [ { "id": "a", "plugin": "x" } ] }"#)
        #expect(throws: GraphError.self) { try result.get() }
        do {
            _ = try result.get()
        } catch {
            #expect(error.code == .unknownPlugin)
        }
    }
}
