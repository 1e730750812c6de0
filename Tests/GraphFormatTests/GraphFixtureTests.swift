import AudioGraph
import Nodes
import Testing
import TestKit

/// Each `Tests/Fixtures/graphs/invalid/NAME.json` pairs with `NAME.expected`: its first error as
/// `iaa validate` prints it, the GCC-form line and, when there is one, the `  hint:` line (where
/// "did you mean" suggestions live).
@Suite("Graph file fixtures")
struct GraphFixtureTests {
    static let invalidFixtures = Repository.graphFiles(in: "Tests/Fixtures/graphs/invalid")
    static let validGraphs = (Repository.graphFiles(in: "graphs") + Repository.graphFiles(in: "Tests/Fixtures/graphs/valid"))
        .filter(TestSupport.loadsWithBuiltins)

    @Test("there are fixtures to check")
    func fixturesExist() {
        #expect(Self.invalidFixtures.count >= 15)
        #expect(Self.validGraphs.count >= 3)
    }

    @Test("each invalid fixture reports its expected first error", arguments: invalidFixtures)
    func invalidFixture(path: String) throws {
        let expectedPath = String(path.dropLast(".json".count)) + ".expected"
        let expected = try #require(Repository.read(expectedPath), "missing \(expectedPath)")
            .split(separator: "\n", omittingEmptySubsequences: true).joined(separator: "\n")
        for registry in [TestSupport.registry, NodeRegistry(BuiltinNodes.types)] {
            let result = TestSupport.load(path, registry: registry)
            #expect(result.graph == nil)
            #expect(result.errors.first?.formatted == expected)
        }
    }

    @Test("every example graph and valid fixture validates with no error", arguments: validGraphs)
    func validGraph(path: String) {
        for registry in [TestSupport.registry, NodeRegistry(BuiltinNodes.types)] {
            let result = TestSupport.load(path, registry: registry)
            #expect(result.errors.map(\.formatted) == [])
            #expect(result.warnings.map(\.formatted) == [])
            #expect(result.graph != nil)
        }
    }
}
