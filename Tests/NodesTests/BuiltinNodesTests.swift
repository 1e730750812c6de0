import Testing
import NodeKit
import Nodes

@Suite("BuiltinNodes")
struct BuiltinNodesTests {
    @Test("the registry holds exactly the five built-in types")
    func ids() {
        let expected = ["builtin:gain", "builtin:mixer", "builtin:noise", "builtin:oscillator", "builtin:passthrough"]
        #expect(BuiltinNodes.types.map(\.id).sorted() == expected)
        #expect(BuiltinNodes.registry.ids == expected)
        #expect(BuiltinNodes.registry["builtin:gain"]?.displayName == "Gain")
    }

    @Test("every type has a display name, a summary and mono ports named like JACK ports",
          arguments: BuiltinNodes.types.map(\.id))
    func described(id: String) throws {
        let type = try #require(BuiltinNodes.registry[id])
        #expect(!type.displayName.isEmpty)
        #expect(!type.summary.isEmpty)
        let layout = type.layout(NodeConfiguration())
        #expect(layout.outputs.map(\.name) == ["out"])
        #expect(layout.outputs.map(\.displayName) == ["Output"])
        for port in layout.inputs + layout.outputs {
            #expect(port.name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
            #expect(port.displayName != port.name)
        }
    }

    @Test("parameters have the documented names, units, ranges and defaults")
    func parameters() throws {
        let table: [(String, String, ParameterSpec.Unit, ClosedRange<Float>, Float)] = [
            ("builtin:oscillator", "frequency", .hertz, 0.01...20_000, 440),
            ("builtin:oscillator", "amplitude", .linearGain, 0...1, 0.5),
            ("builtin:noise", "amplitude", .linearGain, 0...1, 0.25),
            ("builtin:gain", "gain", .linearGain, 0...8, 1),
            ("builtin:mixer", "gain", .linearGain, 0...8, 1),
        ]
        for (id, name, unit, range, defaultValue) in table {
            let type = try #require(BuiltinNodes.registry[id])
            let index = try #require(type.parameterIndex(name))
            let spec = type.parameters[index]
            #expect(spec.unit == unit, "\(id) \(name)")
            #expect(spec.range == range, "\(id) \(name)")
            #expect(spec.defaultValue == defaultValue, "\(id) \(name)")
            #expect(!spec.isDiscrete)
        }
        #expect(BuiltinNodes.registry["builtin:passthrough"]?.parameters.isEmpty == true)
        #expect(BuiltinNodes.registry["builtin:oscillator"]?.parameters.map(\.name) == ["frequency", "amplitude"])
    }

    @Test("configuration has the documented names, ranges and defaults")
    func configuration() throws {
        let noise = try #require(BuiltinNodes.registry["builtin:noise"]?.configuration)
        #expect(noise.map(\.name) == ["seed"])
        #expect(noise.first?.range == 0...2_147_483_647)
        #expect(noise.first?.defaultValue == 1)
        let mixer = try #require(BuiltinNodes.registry["builtin:mixer"]?.configuration)
        #expect(mixer.map(\.name) == ["inputs"])
        #expect(mixer.first?.range == 1...64)
        #expect(mixer.first?.defaultValue == 2)
        for id in ["builtin:oscillator", "builtin:gain", "builtin:passthrough"] {
            #expect(BuiltinNodes.registry[id]?.configuration.isEmpty == true)
        }
    }

    @Test("every node writes every output frame, with steady and with ramping parameters",
          arguments: BuiltinNodes.types.map(\.id), [1, 7, 333])
    func writesEveryFrame(id: String, frames: Int) throws {
        let type = try #require(BuiltinNodes.registry[id])
        for ramping in [false, true] {
            let harness = try NodeHarness(type, frames: frames)
            harness.input = testSignal
            if ramping {
                for (index, spec) in type.parameters.enumerated() {
                    let middle = (spec.range.lowerBound + spec.range.upperBound) / 2
                    harness.rampParameter(index, from: spec.defaultValue, to: middle, over: 500)
                }
            }
            let outputs = harness.render(cycles: 1_000 / frames + 2)
            for samples in outputs {
                #expect(!samples.contains { $0.isNaN }, "\(id), \(frames) frames, ramping: \(ramping)")
            }
        }
    }
}
