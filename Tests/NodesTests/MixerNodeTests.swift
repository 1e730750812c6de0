import Testing
import NodeKit
import Nodes
import SignalAnalysis

@Suite("MixerNode")
struct MixerNodeTests {
    private func mixer(inputs: Int, inPlace: Bool = false) throws -> NodeHarness {
        try NodeHarness(MixerNode.nodeType, configuration: NodeConfiguration(["inputs": inputs]),
                        inPlace: inPlace)
    }

    @Test("the mixer sums its inputs exactly and applies the gain to the sum",
          arguments: [(1, 1), (3, 1), (3, 0.5), (8, 2)] as [(Int, Float)])
    func sums(inputs: Int, gain: Float) throws {
        let harness = try mixer(inputs: inputs)
        harness.input = testSignal
        harness.setParameter(0, .constant(gain))
        let output = harness.render(cycles: 2)[0]
        for (frame, sample) in output.enumerated() {
            var sum = testSignal(0, frame)
            for port in 1..<inputs { sum += testSignal(port, frame) }
            #expect(sample == sum * gain)
        }
    }

    @Test("the inputs configuration sets the ports in_1 to in_N")
    func layout() {
        let layout = MixerNode.nodeType.layout(NodeConfiguration(["inputs": 4]))
        #expect(layout.inputs.map(\.name) == ["in_1", "in_2", "in_3", "in_4"])
        #expect(layout.inputs.map(\.displayName) == ["Input 1", "Input 2", "Input 3", "Input 4"])
        #expect(layout.inputs.allSatisfy { $0.direction == .input })
        #expect(layout.outputs.map(\.name) == ["out"])
        #expect(MixerNode.nodeType.layout(NodeConfiguration()).inputs.count == 2)
    }

    @Test("an out-of-range inputs value is clamped the same way for layout and node",
          arguments: [(0, 1), (100, 64)])
    func clamped(requested: Int, expected: Int) throws {
        let configuration = NodeConfiguration(["inputs": requested])
        #expect(MixerNode.nodeType.layout(configuration).inputs.count == expected)
        let node = try #require(try MixerNode.nodeType.makeNode(configuration) as? MixerNode)
        #expect(node.inputCount == expected)
    }

    @Test("a gain ramp on the sum is monotonic and never steps more than one increment")
    func rampIsSmooth() throws {
        let harness = try mixer(inputs: 2)
        harness.input = { _, _ in 1 }
        harness.rampParameter(0, from: 1, to: 0.5, over: 480)
        let output = harness.render(cycles: 4)[0]
        #expect(output.first == 2)
        #expect(zip(output, output.dropFirst()).allSatisfy { $1 <= $0 })
        #expect(SignalAnalysis.maxAbsoluteStep(output) <= 2 * 0.5 / 480 + 1e-6)
        #expect(output[480...].allSatisfy { $0 == 1 })
    }

    @Test("the mixer works in place, with its output as the first input")
    func inPlace() throws {
        let harness = try mixer(inputs: 3, inPlace: true)
        harness.input = testSignal
        let output = harness.cycle()[0]
        #expect(output == (0..<256).map { testSignal(0, $0) + testSignal(1, $0) + testSignal(2, $0) })
    }

    @Test("silent inputs mix to exact silence")
    func silence() throws {
        let output = try mixer(inputs: 5).render(cycles: 2)[0]
        #expect(SignalAnalysis.isExactlySilent(output))
    }
}
