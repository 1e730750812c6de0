import AudioGraph
import GraphFormat
import Nodes

/// Writes benchmark graphs as `iaa-graph/1` JSON and loads them through the real validator.
public enum GraphGenerator {
    /// A mixer takes at most this many inputs (`builtin:mixer`'s `inputs` range), so more voices
    /// are summed by a tree of mixers.
    public static let mixerFanIn = 64

    /// The parameters of voice `index`, shared with the C reference so both render the same signal.
    public static func voice(_ index: Int) -> (frequency: Float, amplitude: Float, gain: Float, cutoff: Float) {
        (frequency: 100 + Float(index % 997) * 3.5, amplitude: 0.5, gain: 0.5, cutoff: 1_500 + Float(index % 13) * 500)
    }

    /// `voices` × (oscillator → gain → one-pole lowpass), summed into one bus by a tree of mixers.
    public static func voiceGraph(voices: Int) -> String {
        precondition(voices > 0)
        var apps: [String] = [], connections: [String] = []
        var outputs: [String] = []
        for index in 0..<voices {
            let v = voice(index)
            apps.append(#"{ "id": "osc\#(index)", "plugin": "builtin:oscillator", "params": { "frequency": \#(v.frequency), "amplitude": \#(v.amplitude) } }"#)
            apps.append(#"{ "id": "gain\#(index)", "plugin": "builtin:gain", "params": { "gain": \#(v.gain) } }"#)
            apps.append(#"{ "id": "lp\#(index)", "plugin": "builtin:lowpass", "params": { "cutoff": \#(v.cutoff) } }"#)
            connections.append(#"{ "from": "osc\#(index):out", "to": "gain\#(index):in" }"#)
            connections.append(#"{ "from": "gain\#(index):out", "to": "lp\#(index):in" }"#)
            outputs.append("lp\(index):out")
        }
        var level = 0
        repeat {
            var next: [String] = []
            for (chunkIndex, start) in stride(from: 0, to: outputs.count, by: mixerFanIn).enumerated() {
                let chunk = outputs[start..<min(start + mixerFanIn, outputs.count)]
                let id = "mix\(level)_\(chunkIndex)"
                apps.append(#"{ "id": "\#(id)", "plugin": "builtin:mixer", "params": { "inputs": \#(chunk.count) } }"#)
                for (port, output) in chunk.enumerated() {
                    connections.append(#"{ "from": "\#(output)", "to": "\#(id):in_\#(port + 1)" }"#)
                }
                next.append("\(id):out")
            }
            outputs = next
            level += 1
        } while outputs.count > 1
        return document(name: "voices-\(voices)", apps: apps, connections: connections, playback: outputs[0])
    }

    /// The id of the bus that `voiceGraph(voices:)` sums into.
    public static func busID(voices: Int) -> String {
        var count = voices, level = 0
        repeat {
            count = (count + mixerFanIn - 1) / mixerFanIn
            level += 1
        } while count > 1
        return "mix\(level - 1)_0"
    }

    /// A wide graph for compile and validation costs: `sources` oscillators, each feeding
    /// `fanOut` inputs of `mixers` 64-input mixers (inputs may sum several sources), and the
    /// mixers summed by one master. Apps: sources + mixers + 1; connections: sources·fanOut + mixers.
    public static func denseGraph(sources: Int, mixers: Int, fanOut: Int) -> String {
        precondition(mixers <= mixerFanIn && fanOut <= mixers)
        var apps: [String] = [], connections: [String] = []
        for index in 0..<sources {
            let v = voice(index)
            apps.append(#"{ "id": "source\#(index)", "role": "app", "plugin": "builtin:oscillator", "params": { "frequency": \#(v.frequency), "amplitude": 0.1 } }"#)
        }
        for mixer in 0..<mixers {
            apps.append(#"{ "id": "bus\#(mixer)", "plugin": "builtin:mixer", "params": { "inputs": \#(mixerFanIn), "gain": 0.5 } }"#)
        }
        apps.append(#"{ "id": "master", "role": "app", "plugin": "builtin:mixer", "params": { "inputs": \#(mixers) } }"#)
        for index in 0..<sources {
            for k in 0..<fanOut {
                let mixer = (index + k * (mixers / fanOut)) % mixers
                let port = (index / mixers) % mixerFanIn + 1
                connections.append(#"{ "from": "source\#(index):out", "to": "bus\#(mixer):in_\#(port)", "gain": 0.25 }"#)
            }
        }
        for mixer in 0..<mixers {
            connections.append(#"{ "from": "bus\#(mixer):out", "to": "master:in_\#(mixer + 1)" }"#)
        }
        return document(name: "dense-\(sources)", apps: apps, connections: connections, playback: "master:out")
    }

    /// The dense graph grown until its text is at least `bytes` long.
    public static func graphText(atLeast bytes: Int) -> (text: String, sources: Int) {
        var sources = 1_000
        while true {
            let text = denseGraph(sources: sources, mixers: 64, fanOut: 5)
            if text.utf8.count >= bytes { return (text, sources) }
            sources = sources * bytes / text.utf8.count + 16
        }
    }

    static func document(name: String, apps: [String], connections: [String], playback: String) -> String {
        """
        {
          "$schema": "graph.schema.json",
          "format": "iaa-graph/1",
          "name": "\(name)",
          "apps": [
            \(apps.joined(separator: ",\n    "))
          ],
          "connections": [
            \(connections.joined(separator: ",\n    "))
          ],
          "jack": { "connections": [ { "from": "\(playback)", "to": "@playback" } ] }
        }

        """
    }

    /// Loads `text` with the built-in registry; a benchmark graph that does not validate is a bug.
    public static func load(_ text: String, file: String = "bench.json") -> Graph {
        let result = GraphFile.load(text: text, file: file, registry: NodeRegistry(BuiltinNodes.types))
        guard let graph = result.graph else {
            let shown = result.errors.prefix(5).map(\.formatted).joined(separator: "\n")
            fatalError("benchmark graph \(file) does not validate:\n\(shown)")
        }
        return graph
    }
}
