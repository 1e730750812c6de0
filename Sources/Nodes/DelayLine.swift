/// A circular buffer of one channel's past samples with a fractional read tap.
///
/// The storage is allocated by ``allocate(capacity:)`` on the control side and owned by the node
/// that holds the line (which calls ``deallocate()`` in its `deinit`); the audio thread only reads
/// and writes through the pointer.
struct DelayLine {
    private var buffer: UnsafeMutablePointer<Float>? = nil
    /// Samples the buffer holds; the longest delay is `capacity − 2` frames.
    private(set) var capacity = 0
    /// Where the next sample goes.
    private var writeIndex = 0

    /// Replaces the storage with `capacity` zeroed samples. Control side.
    mutating func allocate(capacity: Int) {
        deallocate()
        let size = max(capacity, 4)
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: size)
        storage.initialize(repeating: 0, count: size)
        buffer = storage
        self.capacity = size
        writeIndex = 0
    }

    /// Frees the storage. Control side.
    mutating func deallocate() {
        buffer?.deallocate()
        buffer = nil
        capacity = 0
    }

    /// Zeroes the history without reallocating.
    mutating func clear() {
        buffer?.update(repeating: 0, count: capacity)
        writeIndex = 0
    }

    /// The sample written `delay` frames ago (1 ≤ `delay` ≤ capacity − 2), interpolated linearly
    /// between neighbours; a whole `delay` reads the stored sample exactly.
    /// - Realtime: safe.
    @inline(__always)
    func read(delay: Double) -> Float {
        guard let buffer else { return 0 }
        var position = Double(writeIndex) - delay
        if position < 0 { position += Double(capacity) }
        let whole = Int(position)
        let fraction = Float(position - Double(whole))
        let index = whole < capacity ? whole : whole - capacity
        let next = index + 1 < capacity ? index + 1 : 0
        let current = buffer[index]
        return fraction == 0 ? current : current + fraction * (buffer[next] - current)
    }

    /// Appends one sample.
    /// - Realtime: safe.
    @inline(__always)
    mutating func write(_ sample: Float) {
        guard let buffer else { return }
        buffer[writeIndex] = sample
        writeIndex = writeIndex + 1 < capacity ? writeIndex + 1 : 0
    }
}
