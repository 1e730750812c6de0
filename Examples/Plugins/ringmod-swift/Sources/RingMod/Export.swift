import NodeKit

/// The node types this library exports, built once (on the first call to the entry).
let plugin = PluginExport([.node(RingModulator.description) { _, _ in RingModulator() }])

/// The one symbol the engine looks up: the C list of descriptors.
@_cdecl("iaa_plugin_entry")
public func iaaPluginEntry() -> UnsafeRawPointer { plugin.entry }
