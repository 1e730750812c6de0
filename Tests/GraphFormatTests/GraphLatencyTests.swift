import AudioGraph
import GraphFormat
import Testing

@Suite("The latency block of graph files")
struct GraphLatencyTests {
    static func load(latency: String) -> GraphLoadResult {
        TestSupport.load(json: """
            { "format": "iaa-graph/1", "name": "t",
              "latency": \(latency),
              "apps": [] }
            """)
    }

    @Test("plugin delay compensation is on when the block or the setting is absent")
    func defaults() throws {
        let graph = try #require(TestSupport.load("graphs/demo.json").graph)
        #expect(graph.latency == LatencyConfiguration())
        #expect(graph.latency.compensate)
        let empty = try #require(Self.load(latency: "{}").graph)
        #expect(empty.latency.compensate)
        let written = try #require(Self.load(latency: #"{ "compensate": true }"#).graph)
        #expect(written.latency.compensate)
    }

    @Test("\"compensate\": false turns plugin delay compensation off")
    func off() throws {
        let graph = try #require(Self.load(latency: #"{ "compensate": false }"#).graph)
        #expect(graph.latency == LatencyConfiguration(compensate: false))
        let result = TestSupport.load("Tests/Fixtures/graphs/valid/all-fields.json")
        #expect(result.description?.latency.compensate == false)
        #expect(result.graph?.latency.compensate == false)
    }

    @Test("a setting of the wrong type, an unknown key or a block that is not an object are located errors")
    func errors() {
        let wrongType = Self.load(latency: #"{ "compensate": "no" }"#)
        #expect(wrongType.graph == nil)
        #expect(wrongType.errors.map(\.code) == [.wrongType])
        #expect(wrongType.errors.map(\.pointer) == ["/latency/compensate"])
        #expect(wrongType.errors.first?.message == "\"compensate\" must be true or false, not string")
        #expect(wrongType.errors.first?.line == 2)

        let unknown = Self.load(latency: #"{ "compensate": false, "delay": 64 }"#)
        #expect(unknown.graph == nil)
        #expect(unknown.errors.map(\.code) == [.unknownKey])
        #expect(unknown.errors.map(\.pointer) == ["/latency/delay"])
        #expect(unknown.errors.first?.hint == "allowed keys: compensate")
        #expect(Self.load(latency: #"{ "compensat": false }"#).errors.map(\.hint) == ["did you mean \"compensate\"?"])

        let notObject = Self.load(latency: "false")
        #expect(notObject.errors.map(\.code) == [.wrongType])
        #expect(notObject.errors.map(\.pointer) == ["/latency"])
        #expect(notObject.errors.first?.message == "\"latency\" must be an object, not boolean")
    }

    @Test("a misspelt top-level latency key gets a did-you-mean")
    func misspelt() {
        let result = TestSupport.load(json: #"{ "format": "iaa-graph/1", "name": "t", "latncy": {}, "apps": [] }"#)
        #expect(result.errors.map(\.hint) == ["did you mean \"latency\"?"])
    }
}
