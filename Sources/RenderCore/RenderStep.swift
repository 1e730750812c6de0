import CKernels
import NodeKit

/// One entry of a plan: mix the inputs of one app, then run its node.
///
/// `BitwiseCopyable` so that no class-typed field (and no retain) can creep into the step table.
/// Ranges are `Int32`, so a step takes 64 bytes (one cache line) and the renderer's prefetch
/// reads fewer lines.
package struct RenderStep: BitwiseCopyable {
    let slot: Unmanaged<NodeSlot>
    /// What the step reads after the slot: the node object, or a `SteadyCycleNode`'s steady state
    /// (all a settled cycle touches), and the parameter ramps the slot hands the node. The
    /// renderer prefetches them a few steps ahead (`iaa_prefetch`), which it could not do by
    /// following the slot's own fields without waiting for the slot's line first.
    let node: UnsafeRawPointer
    let ramps: UnsafeRawPointer
    /// Range in the plan's `inputs` and `inputPointers` tables.
    let inputStart: Int32
    let inputCount: Int32
    /// Range in the plan's `outputPointers` table.
    let outputStart: Int32
    let outputCount: Int32
    /// Index in the plan's `midiBuffers`, or -1 for a node without MIDI input.
    let midiIndex: Int32
    /// Range in the plan's `mixedInputs`: this step's inputs whose sources are summed or scaled
    /// every cycle. While no outside signal is connected, only these need work; every other input
    /// reads the buffer the compiler chose (`InputMix.unmixed`).
    let mixStart: Int32
    let mixCount: Int32
    /// Range in the plan's `delays`: this step's compensated connections and outside signals,
    /// whose lines run before its inputs are mixed (``GraphLatency``).
    let delayStart: Int32
    let delayCount: Int32
    /// For the first step of a wave of isolated apps (`PhasedNode`), the index just past its last
    /// member; -1 otherwise.
    let waveEnd: Int32

    package init(slot: Unmanaged<NodeSlot>, node: UnsafeRawPointer, ramps: UnsafeRawPointer, inputStart: Int32, inputCount: Int32, outputStart: Int32, outputCount: Int32, midiIndex: Int32, mixStart: Int32, mixCount: Int32, delayStart: Int32, delayCount: Int32, waveEnd: Int32) {
        self.slot = slot
        self.node = node
        self.ramps = ramps
        self.inputStart = inputStart
        self.inputCount = inputCount
        self.outputStart = outputStart
        self.outputCount = outputCount
        self.midiIndex = midiIndex
        self.mixStart = mixStart
        self.mixCount = mixCount
        self.delayStart = delayStart
        self.delayCount = delayCount
        self.waveEnd = waveEnd
    }
}

/// The MIDI messages one app receives in a cycle: the backend fills it before rendering (from
/// JACK MIDI ports, or from the timeline offline), in frame order.
public struct MIDIBuffer: BitwiseCopyable {
    public let events: UnsafeMutablePointer<MIDIEvent>
    public let capacity: Int
    public var count: Int

    /// Adds an event in frame order; drops it when the buffer is full (a cycle of more than
    /// `capacity` messages is not music).
    /// - Realtime: safe.
    public mutating func insert(_ event: MIDIEvent) {
        guard count < capacity else { return }
        var index = count
        while index > 0 && events[index - 1].frame > event.frame {
            events[index] = events[index - 1]
            index -= 1
        }
        events[index] = event
        count += 1
    }

    package init(events: UnsafeMutablePointer<MIDIEvent>, capacity: Int, count: Int) {
        self.events = events
        self.capacity = capacity
        self.count = count
    }
}

/// How one app input is fed this cycle: summed sources, plus an outside JACK port when connected.
package struct InputMix: BitwiseCopyable {
    /// Where the sum is written when more than one source (or a gain) must be applied.
    let mixBuffer: UnsafeMutablePointer<Float>
    /// Range in the plan's `sources` table.
    let sourceStart: Int
    let sourceCount: Int
    /// Index into the plan's `externalInputs`, or -1 when this input has no outside port.
    let externalIndex: Int
    /// A program app's `play_K`: its outside port is the program itself, heard whatever the
    /// microphone rule says about the app (``PortSpec/programEnd``).
    let programEnd: Bool
    /// What the input reads while no outside signal is heard, decided by the compiler: the
    /// silent buffer (no source), the one source's own buffer (at unity gain), or nil when the
    /// sources must be summed or scaled into `mixBuffer`.
    let unmixed: UnsafePointer<Float>?
    /// Index in the plan's `delays` of the line that delays the outside signal to meet the
    /// app's other paths (``GraphLatency/outsideDelay(_:)``), or -1.
    let outsideDelay: Int32

    /// The buffer the input reads while no outside signal is heard: `unmixed`, or the sum in
    /// `mixBuffer`. Constant for the plan's life.
    package var quietPointer: UnsafePointer<Float> { unmixed ?? UnsafePointer(mixBuffer) }

    package init(mixBuffer: UnsafeMutablePointer<Float>, sourceStart: Int, sourceCount: Int, externalIndex: Int, programEnd: Bool, unmixed: UnsafePointer<Float>?, outsideDelay: Int32) {
        self.mixBuffer = mixBuffer
        self.sourceStart = sourceStart
        self.sourceCount = sourceCount
        self.externalIndex = externalIndex
        self.programEnd = programEnd
        self.unmixed = unmixed
        self.outsideDelay = outsideDelay
    }
}

/// One internal connection as seen by the input it feeds (`buffer`, `gain`): the C struct, so the
/// mixing kernel reads the plan's `sources` table as it is.
package typealias MixSource = iaa_mix_source

/// An app port that the backend exposes outside the engine (a JACK port).
public struct ExternalPort: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case audio, midi }
    public let appID: String
    /// The port's symbol (`out`), so the JACK short name is `APP.PORT`.
    public let portName: String
    public let displayName: String
    public let group: String?
    public let direction: ExternalPortDirection
    /// Position among all exposed ports, for JACK's `order` metadata.
    public let order: Int
    public let kind: Kind
    /// For a MIDI input: its index in the plan's `midiBuffers`.
    public let midiIndex: Int

    /// The JACK short name (`tone.out`).
    public var shortName: String { "\(appID).\(portName)" }

    package init(appID: String, portName: String, displayName: String, group: String?, direction: ExternalPortDirection, order: Int, kind: Kind, midiIndex: Int) {
        self.appID = appID
        self.portName = portName
        self.displayName = displayName
        self.group = group
        self.direction = direction
        self.order = order
        self.kind = kind
        self.midiIndex = midiIndex
    }
}

public enum ExternalPortDirection: Sendable, Hashable {
    /// Outside signals flow into the app's input.
    case input
    /// The app's output is offered outside.
    case output
}
