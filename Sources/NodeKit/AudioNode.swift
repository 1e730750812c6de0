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
