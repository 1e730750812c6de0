import Testing
import NodeKit
import Nodes

@Suite("BuiltinNodes")
struct BuiltinNodesTests {
    @Test("exactly the twelve built-in types, each id once")
    func ids() {
        let expected = ["builtin:delay", "builtin:filter", "builtin:gain", "builtin:host-mixer", "builtin:lowpass",
                        "builtin:mixer", "builtin:noise", "builtin:oscillator", "builtin:passthrough", "builtin:poly-synth",
                        "builtin:program", "builtin:step-sequencer"]
        #expect(BuiltinNodes.types.map(\.id).sorted() == expected)
        #expect(Set(BuiltinNodes.types.map(\.id)).count == expected.count, "ids repeat")
        #expect(BuiltinNodes.type("builtin:gain")?.displayName == "Gain")
    }

    @Test("every type has a display name, a summary and ports named like JACK ports",
          arguments: BuiltinNodes.types.map(\.id))
    func described(id: String) throws {
        let type = try #require(BuiltinNodes.type(id))
        #expect(!type.displayName.isEmpty)
        #expect(!type.summary.isEmpty)
        let layout = type.layout(NodeConfiguration())
        if id == "builtin:delay" {
            #expect(layout.outputs.map(\.name) == ["out_L", "out_R"])
            #expect(layout.outputs.allSatisfy { $0.group == "out" })
            #expect(layout.inputs.allSatisfy { $0.group == "in" })
        } else if id == "builtin:program" {
            // A program app's: what the program plays (stereo by default) and its ends.
            #expect(layout.outputs.map(\.name) == ["out_1", "out_2"])
            #expect(layout.inputs.map(\.name) == ["play_1", "play_2"])
            #expect(layout.inputs.allSatisfy { $0.programEnd })
        } else {
            #expect(layout.outputs.map(\.name) == ["out"])
            #expect(layout.outputs.map(\.displayName) == ["Output"])
        }
        for port in layout.inputs + layout.outputs + layout.midiInputs {
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
            ("builtin:poly-synth", "attack", .seconds, 0...10, 0.005),
            ("builtin:poly-synth", "decay", .seconds, 0...10, 0.2),
            ("builtin:poly-synth", "sustain", .generic, 0...1, 0.7),
            ("builtin:poly-synth", "release", .seconds, 0...10, 0.3),
            ("builtin:poly-synth", "gain", .linearGain, 0...2, 0.25),
            ("builtin:delay", "beats", .generic, 0.0625...4, 0.5),
            ("builtin:delay", "feedback", .linearGain, 0...0.95, 0.4),
            ("builtin:delay", "mix", .generic, 0...1, 0.35),
            ("builtin:filter", "cutoff", .hertz, 20...20_000, 1_000),
            ("builtin:filter", "resonance", .generic, 0...1, 0),
            ("builtin:lowpass", "cutoff", .hertz, 20...20_000, 1_000),
            ("builtin:step-sequencer", "note", .generic, 24...96, 57),
            ("builtin:step-sequencer", "gate", .generic, 0...1, 0.5),
            ("builtin:step-sequencer", "level", .linearGain, 0...1, 0.3),
            ("builtin:host-mixer", "gain", .linearGain, 0...8, 1),
        ]
        for (id, name, unit, range, defaultValue) in table {
            let type = try #require(BuiltinNodes.type(id))
            let index = try #require(type.parameterIndex(name))
            let spec = type.parameters[index]
            #expect(spec.unit == unit, "\(id) \(name)")
            #expect(spec.range == range, "\(id) \(name)")
            #expect(spec.defaultValue == defaultValue, "\(id) \(name)")
            #expect(!spec.isDiscrete)
        }
        #expect(BuiltinNodes.type("builtin:passthrough")?.parameters.isEmpty == true)
        #expect(BuiltinNodes.type("builtin:oscillator")?.parameters.map(\.name) == ["frequency", "amplitude"])
        let discrete: [(String, String, ParameterSpec.Unit, ClosedRange<Float>, Float)] = [
            ("builtin:poly-synth", "waveform", .generic, 0...1, 0),
            ("builtin:delay", "pingPong", .boolean, 0...1, 0),
            ("builtin:filter", "mode", .generic, 0...2, 0),
            ("builtin:step-sequencer", "rate", .generic, 1...4, 2),
        ]
        for (id, name, unit, range, defaultValue) in discrete {
            let type = try #require(BuiltinNodes.type(id))
            let spec = type.parameters[try #require(type.parameterIndex(name))]
            #expect(spec.unit == unit && spec.range == range && spec.defaultValue == defaultValue, "\(id) \(name)")
            #expect(spec.isDiscrete, "\(id) \(name)")
        }
    }

    @Test("the node apps publish components whose type matches their ports")
    func components() throws {
        let table: [(String, ComponentDescription.ComponentType, String)] = [
            ("builtin:poly-synth", .instrument, "auri/poly/iaas"),
            ("builtin:delay", .effect, "aurx/dlay/iaas"),
            ("builtin:filter", .effect, "aurx/filt/iaas"),
            ("builtin:lowpass", .effect, "aurx/lpf1/iaas"),
            ("builtin:step-sequencer", .generator, "aurg/sseq/iaas"),
        ]
        for (id, componentType, codes) in table {
            let type = try #require(BuiltinNodes.type(id))
            let component = try #require(type.component)
            #expect(component.type == componentType)
            #expect(component.codes == codes)
            for code in [component.subtype, component.manufacturer] {
                #expect(code.utf8.count == 4 && code.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
            }
            let layout = type.layout(NodeConfiguration())
            #expect(layout.inputs.isEmpty == !componentType.takesAudioInput, "\(id)")
            #expect(layout.midiInputs.map(\.name) == (componentType.takesMIDI ? ["midi_in"] : []), "\(id)")
            #expect(!layout.outputs.isEmpty)
        }
        for id in ["builtin:host-mixer", "builtin:oscillator", "builtin:mixer"] {
            #expect(BuiltinNodes.type(id)?.component == nil)
        }
    }

    @Test("configuration has the documented names, ranges and defaults")
    func configuration() throws {
        let noise = try #require(BuiltinNodes.type("builtin:noise")?.configuration)
        #expect(noise.map(\.name) == ["seed"])
        #expect(noise.first?.range == 0...2_147_483_647)
        #expect(noise.first?.defaultValue == 1)
        let mixer = try #require(BuiltinNodes.type("builtin:mixer")?.configuration)
        #expect(mixer.map(\.name) == ["inputs"])
        #expect(mixer.first?.range == 1...64)
        #expect(mixer.first?.defaultValue == 2)
        let configurations: [(String, String, ClosedRange<Int>, Int)] = [
            ("builtin:poly-synth", "voices", 1...32, 8),
            ("builtin:step-sequencer", "steps", 1...16, 8),
            ("builtin:host-mixer", "inputs", 1...16, 4),
            ("builtin:host-mixer", "sends", 0...4, 0),
        ]
        for (id, name, range, defaultValue) in configurations {
            let spec = try #require(BuiltinNodes.type(id)?.configuration.first { $0.name == name })
            #expect(spec.range == range && spec.defaultValue == defaultValue, "\(id) \(name)")
        }
        for id in ["builtin:oscillator", "builtin:gain", "builtin:passthrough", "builtin:delay", "builtin:filter",
                   "builtin:lowpass"] {
            #expect(BuiltinNodes.type(id)?.configuration.isEmpty == true)
        }
    }

    @Test("every node writes every output frame, with steady and with ramping parameters, notes and a playing transport",
          arguments: BuiltinNodes.types.map(\.id), [1, 7, 333])
    func writesEveryFrame(id: String, frames: Int) throws {
        let type = try #require(BuiltinNodes.type(id))
        for ramping in [false, true] {
            let harness = try NodeHarness(type, frames: frames)
            harness.input = testSignal
            harness.transport.isPlaying = true
            if !harness.layout.midiInputs.isEmpty {
                for (frame, note) in [(0, 60), (3, 64), (200, 67), (600, 71)] {
                    harness.send(.noteOn(UInt8(note), velocity: 100), at: frame)
                }
                harness.send(.noteOff(64), at: 400)
            }
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
