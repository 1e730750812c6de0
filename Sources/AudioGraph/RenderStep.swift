/// One entry of a plan: mix the inputs of one app, then run its node.
///
/// `BitwiseCopyable` so that no class-typed field (and no retain) can creep into the step table.
struct RenderStep: BitwiseCopyable {
    let slot: Unmanaged<NodeSlot>
    /// Range in the plan's `inputs` and `inputPointers` tables.
    let inputStart: Int
    let inputCount: Int
    /// Range in the plan's `outputPointers` table.
    let outputStart: Int
    let outputCount: Int
}

/// How one app input is fed this cycle: summed sources, plus an outside JACK port when connected.
struct InputMix: BitwiseCopyable {
    /// Where the sum is written when more than one source (or a gain) must be applied.
    let mixBuffer: UnsafeMutablePointer<Float>
    /// Range in the plan's `sources` table.
    let sourceStart: Int
    let sourceCount: Int
    /// Index into the plan's `externalInputs`, or -1 when this input has no outside port.
    let externalIndex: Int
}

/// One internal connection as seen by the input it feeds.
struct MixSource: BitwiseCopyable {
    let buffer: UnsafePointer<Float>
    let gain: Float
}

/// An app port that the backend exposes outside the engine (a JACK port).
public struct ExternalPort: Sendable, Hashable {
    public let appID: String
    /// The port's symbol (`out`), so the JACK short name is `APP.PORT`.
    public let portName: String
    public let displayName: String
    public let group: String?
    public let direction: ExternalPortDirection
    /// Position among all exposed ports, for JACK's `order` metadata.
    public let order: Int

    /// The JACK short name (`tone.out`).
    public var shortName: String { "\(appID).\(portName)" }
}

public enum ExternalPortDirection: Sendable, Hashable {
    /// Outside signals flow into the app's input.
    case input
    /// The app's output is offered outside.
    case output
}
