import Testing
import NodeKit
import Nodes
import SignalAnalysis

@Suite("PassthroughNode")
struct PassthroughNodeTests {
    @Test("the passthrough copies its input exactly", arguments: [false, true])
    func copies(inPlace: Bool) throws {
        let harness = try NodeHarness(PassthroughNode.nodeType, inPlace: inPlace)
        harness.input = testSignal
        let output = harness.render(cycles: 3)[0]
        #expect(output == (0..<output.count).map { testSignal(0, $0) })
    }

    @Test("a silent input passes as exact silence")
    func silence() throws {
        let output = try NodeHarness(PassthroughNode.nodeType).render(cycles: 2)[0]
        #expect(SignalAnalysis.isExactlySilent(output))
    }
}
