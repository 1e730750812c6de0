import AudioGraph
import NodeKit

extension TestSupport {
    /// The built-in types' contract (ids, ports, parameters, configuration, components),
    /// independent of the Nodes module so that a change there cannot hide a validator bug.
    static let registry = NodeRegistry([
        NodeType(id: "builtin:oscillator", displayName: "Oscillator", summary: "A sine.",
                 parameters: [
                     ParameterSpec(name: "frequency", range: 0.01...20000, defaultValue: 440, unit: .hertz),
                     ParameterSpec(name: "amplitude", range: 0...1, defaultValue: 0.5, unit: .linearGain),
                 ],
                 layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:noise", displayName: "Noise", summary: "White noise.",
                 parameters: [ParameterSpec(name: "amplitude", range: 0...1, defaultValue: 0.25, unit: .linearGain)],
                 configuration: [ConfigurationSpec(name: "seed", range: 0...2147483647, defaultValue: 1)],
                 layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:gain", displayName: "Gain", summary: "A gain.",
                 parameters: [ParameterSpec(name: "gain", range: 0...8, defaultValue: 1, unit: .linearGain)],
                 layout: { _ in NodeLayout(inputs: [.input("in")], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:mixer", displayName: "Mixer", summary: "Sums its inputs.",
                 parameters: [ParameterSpec(name: "gain", range: 0...8, defaultValue: 1, unit: .linearGain)],
                 configuration: [ConfigurationSpec(name: "inputs", range: 1...64, defaultValue: 2)],
                 layout: { configuration in
                     let count = configuration.value("inputs", default: 2)
                     return NodeLayout(inputs: (1...max(1, count)).map { .input("in_\($0)") }, outputs: [.output("out")])
                 },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:program", displayName: "Program", summary: "An outside program's sound.",
                 configuration: [ConfigurationSpec(name: "outputs", range: 0...64, defaultValue: 2),
                                 ConfigurationSpec(name: "inputs", range: 0...64, defaultValue: 0)],
                 layout: { configuration in
                     let outputs = configuration.value("outputs", default: 2), inputs = configuration.value("inputs", default: 0)
                     let plays = (0..<outputs).map { PortSpec(name: "play_\($0 + 1)", direction: .input, programEnd: true) }
                     let captures = (0..<inputs).map { PortSpec(name: "capture_\($0 + 1)", direction: .output, programEnd: true) }
                     return NodeLayout(inputs: plays + (0..<inputs).map { .input("in_\($0 + 1)") },
                                       outputs: (0..<outputs).map { .output("out_\($0 + 1)") } + captures)
                 },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:passthrough", displayName: "Passthrough", summary: "Copies.",
                 layout: { _ in NodeLayout(inputs: [.input("in")], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:poly-synth", displayName: "Poly Synth", summary: "An instrument.",
                 parameters: [
                     ParameterSpec(name: "attack", range: 0...10, defaultValue: 0.01, unit: .seconds),
                     ParameterSpec(name: "decay", range: 0...10, defaultValue: 0.1, unit: .seconds),
                     ParameterSpec(name: "sustain", range: 0...1, defaultValue: 0.7),
                     ParameterSpec(name: "release", range: 0...10, defaultValue: 0.2, unit: .seconds),
                     ParameterSpec(name: "gain", range: 0...2, defaultValue: 0.5, unit: .linearGain),
                     ParameterSpec(name: "waveform", range: 0...1, defaultValue: 0, isDiscrete: true),
                 ],
                 configuration: [ConfigurationSpec(name: "voices", range: 1...32, defaultValue: 8)],
                 component: ComponentDescription(type: .instrument, subtype: "poly", manufacturer: "iaas", name: "Poly Synth"),
                 layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")], midiInputs: [.input("midi_in")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:delay", displayName: "Tempo Delay", summary: "A stereo effect.",
                 parameters: [
                     ParameterSpec(name: "beats", range: 0.0625...4, defaultValue: 0.75),
                     ParameterSpec(name: "feedback", range: 0...0.95, defaultValue: 0.4),
                     ParameterSpec(name: "mix", range: 0...1, defaultValue: 0.35),
                     ParameterSpec(name: "pingPong", range: 0...1, defaultValue: 0, isDiscrete: true),
                 ],
                 component: ComponentDescription(type: .effect, subtype: "dlay", manufacturer: "iaas", name: "Tempo Delay"),
                 layout: { _ in
                     NodeLayout(inputs: [.input("in_L"), .input("in_R")], outputs: [.output("out_L"), .output("out_R")])
                 },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:filter", displayName: "Filter", summary: "An effect.",
                 parameters: [
                     ParameterSpec(name: "cutoff", range: 20...20000, defaultValue: 1000, unit: .hertz),
                     ParameterSpec(name: "resonance", range: 0...1, defaultValue: 0.2),
                     ParameterSpec(name: "mode", range: 0...2, defaultValue: 0, isDiscrete: true),
                 ],
                 component: ComponentDescription(type: .effect, subtype: "filt", manufacturer: "iaas", name: "Filter"),
                 layout: { _ in NodeLayout(inputs: [.input("in")], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:step-sequencer", displayName: "Step Sequencer", summary: "A generator.",
                 parameters: [
                     ParameterSpec(name: "note", range: 24...96, defaultValue: 60),
                     ParameterSpec(name: "gate", range: 0...1, defaultValue: 0.5),
                     ParameterSpec(name: "rate", range: 1...4, defaultValue: 2, isDiscrete: true),
                     ParameterSpec(name: "level", range: 0...1, defaultValue: 0.5, unit: .linearGain),
                 ],
                 configuration: [ConfigurationSpec(name: "steps", range: 1...16, defaultValue: 8)],
                 component: ComponentDescription(type: .generator, subtype: "sseq", manufacturer: "iaas", name: "Step Sequencer"),
                 layout: { _ in NodeLayout(inputs: [], outputs: [.output("out")]) },
                 make: { _ in CopyNode() }),
        NodeType(id: "builtin:host-mixer", displayName: "Host Mixer", summary: "The host app.",
                 parameters: [ParameterSpec(name: "gain", range: 0...8, defaultValue: 1, unit: .linearGain)],
                 configuration: [
                     ConfigurationSpec(name: "inputs", range: 1...16, defaultValue: 4),
                     ConfigurationSpec(name: "sends", range: 0...4, defaultValue: 0),
                 ],
                 layout: { configuration in
                     let inputs = configuration.value("inputs", default: 4), sends = configuration.value("sends", default: 0)
                     return NodeLayout(inputs: (0..<inputs).map { .input("in_\($0 + 1)") } + (0..<sends).map { .input("return_\($0 + 1)", readsPreviousCycle: true) },
                                       outputs: [.output("out")] + (0..<sends).map { .output("send_\($0 + 1)") })
                 },
                 make: { _ in CopyNode() }),
    ])
}
