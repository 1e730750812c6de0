import CSndfile

/// Writes audio to a WAV, FLAC, AIFF or Ogg Vorbis file through libsndfile.
///
/// Control side or a disk thread only: libsndfile does file I/O and may block, so the audio
/// thread hands samples over through a ring instead of calling this.
public final class SoundFileWriter {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    public let format: SampleFormat
    public let container: AudioContainer
    /// Frames written so far.
    public private(set) var framesWritten = 0

    private var handle: OpaquePointer?
    /// Frames interleaved per chunk by ``write(channels:frames:)``; bounds its scratch buffer.
    private static let chunkFrames = 4_096
    /// Reused by ``write(channels:frames:)`` so writing per cycle never allocates.
    private let scratch: UnsafeMutablePointer<Float>

    /// Creates (or truncates) `path`. The container comes from the extension (`.wav`, `.flac`,
    /// `.aiff`/`.aif`, `.ogg`; WAV when there is none).
    public init(path: String, sampleRate: Int, channels: Int,
                format: SampleFormat = .float32) throws(AudioFileError) {
        guard let container = AudioContainer(path: path) else {
            throw AudioFileError(.unsupportedFormat, path: path,
                                 message: "cannot tell the file type from the extension",
                                 hint: "use one of: " + AudioContainer.extensions.map { "." + $0 }.joined(separator: ", "))
        }
        guard sampleRate > 0, sampleRate <= Int(Int32.max), channels > 0, channels <= 1_024 else {
            throw AudioFileError(.invalidArgument, path: path,
                                 message: "invalid sample rate \(sampleRate) or channel count \(channels)",
                                 hint: "both must be positive (at most 1024 channels)")
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = container.sndfileFormat(format)
        guard sf_format_check(&info) != 0 else {
            throw AudioFileError(.unsupportedFormat, path: path,
                                 message: "\(container.rawValue) cannot hold \(format.rawValue) samples in \(channels) channels",
                                 hint: container == .flac ? "FLAC holds pcm16 or pcm24; use .wav for float32" : nil)
        }
        guard let opened = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFileError(.openFailed, path: path,
                                 message: "cannot open for writing: " + Sndfile.message(nil),
                                 hint: "check that the folder exists and that you may write to it")
        }
        // Without clipping, libsndfile wraps an over-range float into the opposite sign.
        sf_command(opened, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        self.handle = opened
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
        self.container = container
        self.scratch = .allocate(capacity: Self.chunkFrames * channels)
    }

    deinit {
        if let handle { sf_close(handle) }
        scratch.deallocate()
    }

    /// Appends `frames` frames of interleaved samples (`frames × channels` values).
    public func write(interleaved: UnsafeBufferPointer<Float>, frames: Int) throws(AudioFileError) {
        guard frames >= 0, interleaved.count >= frames * channels else {
            throw AudioFileError(.invalidArgument, path: path,
                                 message: "\(frames) frames of \(channels) channels need \(frames * channels) samples, got \(interleaved.count)")
        }
        guard frames > 0, let base = interleaved.baseAddress else { return }
        try writeFrames(base, frames)
    }

    /// Appends `frames` frames given as one buffer per channel, interleaving them in chunks
    /// through a buffer allocated once.
    public func write(channels buffers: [UnsafeBufferPointer<Float>], frames: Int) throws(AudioFileError) {
        guard buffers.count == channels else {
            throw AudioFileError(.invalidArgument, path: path,
                                 message: "the file has \(channels) channels, got \(buffers.count) buffers")
        }
        guard frames >= 0, buffers.allSatisfy({ $0.count >= frames }) else {
            throw AudioFileError(.invalidArgument, path: path,
                                 message: "every channel buffer must hold \(frames) frames")
        }
        var done = 0
        while done < frames {
            let chunk = min(frames - done, Self.chunkFrames)
            for (channel, buffer) in buffers.enumerated() {
                guard let source = buffer.baseAddress else { continue }
                for frame in 0..<chunk {
                    scratch[frame * channels + channel] = source[done + frame]
                }
            }
            try writeFrames(scratch, chunk)
            done += chunk
        }
    }

    /// Appends one array per channel, all of the same length. Allocates; not for hot paths.
    public func write(_ channelSamples: [[Float]]) throws(AudioFileError) {
        guard channelSamples.count == channels else {
            throw AudioFileError(.invalidArgument, path: path,
                                 message: "the file has \(channels) channels, got \(channelSamples.count) arrays")
        }
        let frames = channelSamples.first?.count ?? 0
        guard channelSamples.allSatisfy({ $0.count == frames }) else {
            throw AudioFileError(.invalidArgument, path: path,
                                 message: "channel arrays differ in length: \(channelSamples.map(\.count))")
        }
        var interleaved = [Float](repeating: 0, count: frames * channels)
        for (channel, samples) in channelSamples.enumerated() {
            for (frame, sample) in samples.enumerated() {
                interleaved[frame * channels + channel] = sample
            }
        }
        try interleaved.withUnsafeBufferPointer { buffer throws(AudioFileError) in
            try write(interleaved: buffer, frames: frames)
        }
    }

    /// Finishes the header and closes the file. Further writes throw ``AudioFileError/Code/closed``.
    public func close() throws(AudioFileError) {
        guard let open = handle else { return }
        handle = nil
        let status = sf_close(open)
        guard status == 0 else {
            throw AudioFileError(.closeFailed, path: path,
                                 message: "cannot finish the file: " + String(cString: sf_error_number(status)))
        }
        if container == .wav && format == .float32 { try FloatWAVHeader.addExtensionSize(path: path) }
    }

    private func writeFrames(_ base: UnsafePointer<Float>, _ frames: Int) throws(AudioFileError) {
        guard let open = handle else {
            throw AudioFileError(.closed, path: path, message: "write after close")
        }
        let written = sf_writef_float(open, base, sf_count_t(frames))
        framesWritten += Int(max(written, 0))
        guard written == sf_count_t(frames) else {
            throw AudioFileError(.writeFailed, path: path,
                                 message: "wrote \(written) of \(frames) frames: " + Sndfile.message(open),
                                 hint: "check the free space on the disk")
        }
    }
}
