/// One MIDI message at an exact frame of the cycle (sample-accurate timing).
public struct MIDIEvent: BitwiseCopyable, Equatable, Sendable {
    /// Offset of the message from the first frame of the cycle.
    public var frame: Int32
    /// Bytes used in `status`, `data1`, `data2` (1 to 3).
    public var size: UInt8
    public var status: UInt8
    public var data1: UInt8
    public var data2: UInt8

    public init(frame: Int32, status: UInt8, data1: UInt8 = 0, data2: UInt8 = 0, size: UInt8 = 3) {
        self.frame = frame
        self.status = status
        self.data1 = data1
        self.data2 = data2
        self.size = size
    }

    /// The channel (0…15) of a channel message.
    @inlinable public var channel: UInt8 { status & 0x0F }
    /// A note-on with a velocity above 0 (a note-on at velocity 0 is a note-off, as MIDI says).
    @inlinable public var isNoteOn: Bool { status & 0xF0 == 0x90 && data2 > 0 }
    @inlinable public var isNoteOff: Bool { status & 0xF0 == 0x80 || (status & 0xF0 == 0x90 && data2 == 0) }
    @inlinable public var note: UInt8 { data1 }
    @inlinable public var velocity: UInt8 { data2 }

    public static func noteOn(_ note: UInt8, velocity: UInt8, channel: UInt8 = 0, frame: Int32 = 0) -> MIDIEvent {
        MIDIEvent(frame: frame, status: 0x90 | (channel & 0x0F), data1: note & 0x7F, data2: velocity & 0x7F)
    }

    public static func noteOff(_ note: UInt8, channel: UInt8 = 0, frame: Int32 = 0) -> MIDIEvent {
        MIDIEvent(frame: frame, status: 0x80 | (channel & 0x0F), data1: note & 0x7F, data2: 0)
    }
}

/// The MIDI messages a node receives in one cycle, in frame order.
public struct MIDIEvents: BitwiseCopyable {
    @usableFromInline let base: UnsafePointer<MIDIEvent>?
    public let count: Int

    public init(base: UnsafePointer<MIDIEvent>?, count: Int) {
        self.base = base
        self.count = base == nil ? 0 : count
    }

    /// No messages.
    public static var none: MIDIEvents { MIDIEvents(base: nil, count: 0) }

    /// - Realtime: safe.
    @inlinable public subscript(index: Int) -> MIDIEvent { base.unsafelyUnwrapped[index] }
}
