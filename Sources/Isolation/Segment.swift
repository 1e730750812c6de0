import CIsolation
import IAAPluginABI
#if canImport(Glibc)
import Glibc
#endif

/// One isolated app's shared memory: the header, ramps, MIDI and audio blocks of
/// `iaa_isolation.h`, mapped in this process. The engine creates it; the child maps the same
/// memfd (descriptor 3) with ``Segment/init(attaching:)``.
///
/// Pointers into it are computed once, so a cycle only follows them.
public final class Segment: @unchecked Sendable {
    public let descriptor: Int32
    public let size: Int
    public let header: UnsafeMutablePointer<iaa_isolation_header>
    public let ramps: UnsafeMutablePointer<iaa_ramp>
    public let midi: UnsafeMutablePointer<iaa_midi_event>
    /// One block of `maximumFrames` floats per audio input / output, in port order.
    public let inputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    public let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    public let inputCount: Int
    public let outputCount: Int
    public let parameterCount: Int
    public let maximumFrames: Int
    /// The cycle the engine asks for, the cycle the child finished (futex words), the child's
    /// `IAA_CHILD_*` state, the stop flag, the reset counter and the node's transport request.
    public let request: UnsafeMutablePointer<UInt32>
    public let reply: UnsafeMutablePointer<UInt32>
    /// The cycle the child began rendering (it stores it before it renders).
    public let started: UnsafeMutablePointer<UInt32>
    /// Set by the engine while it waits for `reply`: only then does the child wake it.
    public let wakeOnReply: UnsafeMutablePointer<UInt32>
    public let childState: UnsafeMutablePointer<UInt32>
    public let stop: UnsafeMutablePointer<UInt32>
    public let reset: UnsafeMutablePointer<UInt32>
    public let transportRequest: UnsafeMutablePointer<UInt32>
    /// The node's latency in frames as it last reported it (NodeKit's `LatencyReport`; the child writes).
    public let latency: UnsafeMutablePointer<UInt32>
    /// The CPU the engine's audio thread ran on in its last cycle (`UInt32.max` before the first),
    /// which the supervisor keeps the child on.
    public let engineCPU: UnsafeMutablePointer<UInt32>
    private let base: UnsafeMutableRawPointer

    /// A new segment for a node with these counts (engine side).
    public convenience init(inputs: Int, outputs: Int, parameters: Int, maximumFrames: Int, sampleRate: Double) throws(IsolationError) {
        let layout = iaa_isolation_layout_for(UInt32(inputs), UInt32(outputs), UInt32(parameters), UInt32(maximumFrames))
        let fd = iaa_isolation_segment_create(layout.total)
        guard fd >= 0 else { throw IsolationError("cannot create the shared memory (memfd_create: \(String(cString: strerror(errno))))") }
        guard let base = iaa_isolation_segment_map(fd, layout.total) else {
            close(fd)
            throw IsolationError("cannot map the shared memory (mmap: \(String(cString: strerror(errno))))")
        }
        let header = base.assumingMemoryBound(to: iaa_isolation_header.self)
        header.pointee.magic = IAA_ISOLATION_MAGIC
        header.pointee.version = IAA_ISOLATION_VERSION
        header.pointee.input_count = UInt32(inputs)
        header.pointee.output_count = UInt32(outputs)
        header.pointee.parameter_count = UInt32(parameters)
        header.pointee.max_frames = UInt32(maximumFrames)
        header.pointee.sample_rate = sampleRate
        header.pointee.total_size = UInt64(layout.total)
        header.pointee.engine_cpu = .max
        self.init(descriptor: fd, base: base, layout: layout, inputs: inputs, outputs: outputs, parameters: parameters,
                  maximumFrames: maximumFrames)
    }

    /// The segment the engine passed as descriptor 3 (child side); checks its header.
    public static func attach(descriptor fd: Int32) throws(IsolationError) -> Segment {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= MemoryLayout<iaa_isolation_header>.size,
              let peek = iaa_isolation_segment_map(fd, Int(info.st_size)) else {
            throw IsolationError("descriptor \(fd) is no isolation segment; `iaa isolated-node` is started by the engine, not by hand")
        }
        let header = peek.assumingMemoryBound(to: iaa_isolation_header.self).pointee
        guard header.magic == IAA_ISOLATION_MAGIC, header.version == IAA_ISOLATION_VERSION else {
            iaa_isolation_segment_unmap(peek, Int(info.st_size))
            throw IsolationError("the shared memory has layout version \(header.version); this iaa reads \(IAA_ISOLATION_VERSION) (engine and child must be the same build)")
        }
        let layout = iaa_isolation_layout_for(header.input_count, header.output_count, header.parameter_count, header.max_frames)
        guard layout.total == Int(info.st_size) else {
            iaa_isolation_segment_unmap(peek, Int(info.st_size))
            throw IsolationError("the shared memory is \(info.st_size) bytes, its header says \(layout.total)")
        }
        return Segment(descriptor: fd, base: peek, layout: layout, inputs: Int(header.input_count),
                       outputs: Int(header.output_count), parameters: Int(header.parameter_count),
                       maximumFrames: Int(header.max_frames))
    }

    private init(descriptor: Int32, base: UnsafeMutableRawPointer, layout: iaa_isolation_layout, inputs: Int, outputs: Int,
                 parameters: Int, maximumFrames: Int) {
        self.descriptor = descriptor
        self.base = base
        size = layout.total
        let header = base.assumingMemoryBound(to: iaa_isolation_header.self)
        self.header = header
        request = Self.word(header, \.request)
        reply = Self.word(header, \.reply)
        wakeOnReply = Self.word(header, \.wake_on_reply)
        started = Self.word(header, \.started)
        childState = Self.word(header, \.child_state)
        stop = Self.word(header, \.stop)
        reset = Self.word(header, \.reset)
        transportRequest = Self.word(header, \.transport_request)
        latency = Self.word(header, \.latency)
        engineCPU = Self.word(header, \.engine_cpu)
        ramps = (base + layout.ramps).assumingMemoryBound(to: iaa_ramp.self)
        midi = (base + layout.midi).assumingMemoryBound(to: iaa_midi_event.self)
        inputCount = inputs
        outputCount = outputs
        parameterCount = parameters
        self.maximumFrames = maximumFrames
        let block = (MemoryLayout<Float>.stride * maximumFrames + 63) / 64 * 64
        self.inputs = .allocate(capacity: max(inputs, 1))
        self.outputs = .allocate(capacity: max(outputs, 1))
        for index in 0..<inputs {
            (self.inputs + index).initialize(to: (base + layout.inputs + block * index).assumingMemoryBound(to: Float.self))
        }
        for index in 0..<outputs {
            (self.outputs + index).initialize(to: (base + layout.outputs + block * index).assumingMemoryBound(to: Float.self))
        }
    }

    deinit {
        inputs.deallocate()
        outputs.deallocate()
        iaa_isolation_segment_unmap(base, size)
        close(descriptor)
    }

    /// The words both processes touch (futexes, states, counters), at fixed places in the header.
    private static func word(_ header: UnsafeMutablePointer<iaa_isolation_header>,
                             _ field: KeyPath<iaa_isolation_header, UInt32>) -> UnsafeMutablePointer<UInt32> {
        let offset = MemoryLayout<iaa_isolation_header>.offset(of: field) ?? 0
        return (UnsafeMutableRawPointer(header) + offset).assumingMemoryBound(to: UInt32.self)
    }

    /// The child's message when creating the node failed.
    public var childError: String {
        withUnsafePointer(to: header.pointee.error) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: 512) { String(cString: $0) }
        }
    }

    /// Writes the child's failure message (child side).
    public func setChildError(_ message: String) {
        withUnsafeMutablePointer(to: &header.pointee.error) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: 512) { buffer in
                let bytes = Array(message.utf8.prefix(511))
                for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
                buffer[bytes.count] = 0
            }
        }
    }
}

/// Why isolation could not be set up (control side).
public struct IsolationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
