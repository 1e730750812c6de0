import Synchronization

/// The host's transport as every node sees it during one cycle (Inter-App Audio's host sync):
/// playing or not, tempo, and where the cycle starts in beats and bars.
public struct HostTransport: BitwiseCopyable, Equatable, Sendable {
    public var isPlaying: Bool
    public var isRecording: Bool
    /// Beats per minute.
    public var tempo: Double
    public var beatsPerBar: Double
    /// Beats since the transport's start, at the first frame of the cycle.
    public var beat: Double
    /// The bar (from 1) and the beat within it (from 0), at the first frame of the cycle.
    public var bar: Int
    public var beatInBar: Double
    /// The transport's frame position at the first frame of the cycle.
    public var sampleTime: Int64

    public init(isPlaying: Bool = false, isRecording: Bool = false, tempo: Double = 120, beatsPerBar: Double = 4,
                beat: Double = 0, bar: Int = 1, beatInBar: Double = 0, sampleTime: Int64 = 0) {
        self.isPlaying = isPlaying
        self.isRecording = isRecording
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.beat = beat
        self.bar = bar
        self.beatInBar = beatInBar
        self.sampleTime = sampleTime
    }

    /// A stopped transport at 120 BPM, 4/4, at the start.
    public static var stopped: HostTransport { HostTransport() }

    /// Frames per beat at `sampleRate`.
    @inlinable public func framesPerBeat(sampleRate: Double) -> Double { sampleRate * 60 / tempo }
}

/// What a node may ask its host's transport to do (Apple's remote transport control).
public enum TransportRequest: UInt8, Sendable {
    case none = 0, play, stop, toggleRecord
}

/// Where a node's transport requests go: one atomic cell the engine reads on the control side.
public struct TransportRequestCell: BitwiseCopyable {
    @usableFromInline let cell: UnsafePointer<Atomic<UInt8>>?

    public init(cell: UnsafePointer<Atomic<UInt8>>?) {
        self.cell = cell
    }

    public static var none: TransportRequestCell { TransportRequestCell(cell: nil) }

    /// The cell as an opaque pointer, for the C ABI's `host` (PluginHost).
    public var opaqueCell: UnsafeMutableRawPointer? { cell.map { UnsafeMutableRawPointer(mutating: $0) } }

    /// Asks the host to play, stop or toggle recording; the engine acts on it after the cycle.
    /// - Realtime: safe.
    @inlinable public func request(_ request: TransportRequest) {
        cell?.pointee.store(request.rawValue, ordering: .releasing)
    }
}
