import NodeKit

/// The node types this library exports, built once (on the first call to the entry).
let plugin = PluginExport([
    .node(SineGenerator.description) { sampleRate, _ in
        guard sampleRate >= 8_000 else { throw UnsupportedRate(sampleRate: sampleRate) }
        return SineGenerator(sampleRate: sampleRate)
    },
])

/// The one symbol the engine looks up: the C list of descriptors.
@_cdecl("iaa_plugin_entry")
public func iaaPluginEntry() -> UnsafeRawPointer { plugin.entry }
