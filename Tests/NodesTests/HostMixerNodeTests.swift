import Testing
import NodeKit
import Nodes
import SignalAnalysis

@Suite("HostMixerNode")
struct HostMixerNodeTests {
    private func host(inputs: Int, sends: Int, inPlace: Bool = false) throws -> NodeHarness {
        try NodeHarness(HostMixerNode.nodeType, configuration: NodeConfiguration(["inputs": inputs, "sends": sends]),
                        inPlace: inPlace)
    }

    @Test("ports: in_1…in_N then return_1…return_S; out then send_1…send_S")
    func layout() {
        let layout = HostMixerNode.nodeType.layout(NodeConfiguration(["inputs": 3, "sends": 2]))
        #expect(layout.inputs.map(\.name) == ["in_1", "in_2", "in_3", "return_1", "return_2"])
        #expect(layout.outputs.map(\.name) == ["out", "send_1", "send_2"])
        let defaults = HostMixerNode.nodeType.layout(NodeConfiguration())
        #expect(defaults.inputs.map(\.name) == ["in_1", "in_2", "in_3", "in_4"])
        #expect(defaults.outputs.map(\.name) == ["out"])
        #expect(HostMixerNode.nodeType.component == nil)
    }

    @Test("without sends, out is the sum of the inputs times the gain", arguments: [(1, 1 as Float), (4, 0.5), (16, 2)])
    func sums(inputs: Int, gain: Float) throws {
        let harness = try host(inputs: inputs, sends: 0)
        harness.input = testSignal
        harness.setParameter(0, .constant(gain))
        let output = harness.render(cycles: 2)[0]
        for frame in output.indices {
            var sum: Float = 0
            for port in 0..<inputs { sum += testSignal(port, frame) }
            #expect(abs(output[frame] - sum * gain) < 1e-5)
        }
    }

    @Test("with sends, send_1 carries the mix, each later send the previous return, and out the last return",
          arguments: [false, true])
    func sendsInSeries(inPlace: Bool) throws {
        let harness = try host(inputs: 2, sends: 3, inPlace: inPlace)
        harness.input = testSignal
        harness.setParameter(0, .constant(0.5))
        let outputs = harness.render(cycles: 2)
        let frames = outputs[0].indices
        #expect(outputs[1] == frames.map { testSignal(0, $0) + testSignal(1, $0) })
        #expect(outputs[2] == frames.map { testSignal(2, $0) })
        #expect(outputs[3] == frames.map { testSignal(3, $0) })
        #expect(outputs[0] == frames.map { testSignal(4, $0) * 0.5 })
    }

    @Test("silent inputs mix to exact silence")
    func silence() throws {
        let outputs = try host(inputs: 4, sends: 1).render(cycles: 2)
        #expect(outputs.allSatisfy { SignalAnalysis.isExactlySilent($0) })
    }
}
