/// A node's DSP object: what a generator, instrument, effect or mixer implements.
///
/// The engine creates a node on the control side, calls ``prepare(sampleRate:maximumFrames:)``
/// there, and then calls ``process(_:)`` once per cycle on the audio thread. Nodes are classes so
/// that their state has one stable home; the engine calls them through a generic slot and
/// `Unmanaged`, which costs no reference counting on the audio thread.
public protocol AudioNode: AnyObject {
    /// Allocates and computes everything `process` needs. Called on the control side, before the
    /// first cycle and again whenever the sample rate or the maximum cycle size changes.
    func prepare(sampleRate: Double, maximumFrames: Int)

    /// Renders one cycle: reads `context.inputs`, writes every frame of every `context.outputs`.
    ///
    /// - Realtime: runs on the audio thread. Must not allocate, lock, block, print, or touch
    ///   `String`, Foundation, closures or existentials.
    func process(_ context: ProcessContext)

    /// Returns the node to its initial state (phases, envelopes, delay lines) without reallocating.
    func reset()
}

extension AudioNode {
    public func prepare(sampleRate: Double, maximumFrames: Int) {}
    public func reset() {}
}

/// A node that keeps state beyond its parameters (an LV2 plugin's loaded sample, its internal
/// settings), which `iaa dump --graph` writes into the app's `pluginState` and which the node
/// restores when it is created from that configuration.
public protocol StatefulNode: AudioNode {
    /// The state now, or nil when there is nothing to keep. Control side; may run while the
    /// audio thread runs the node. Throws a message when the plugin fails to save.
    func savedState() throws(NodeStateError) -> String?
}

/// Why a node's state could not be saved or restored.
public struct NodeStateError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A node with values to show beyond its parameters: an LV2 or LADSPA plugin's control outputs
/// (meters, gain reduction, latency), which `iaa status` lists.
public protocol ReportingNode: AudioNode {
    /// Each output's name and last value. Control side; a value may be one cycle old.
    var readings: [(name: String, value: Float)] { get }
}
