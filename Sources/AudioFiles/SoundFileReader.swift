import CSndfile

/// Reads any file libsndfile understands (WAV, FLAC, AIFF, Ogg, …) as `Float` samples.
///
/// Control side or a disk thread only: reads block on the disk.
public final class SoundFileReader {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// Frames in the file, as its header says.
    public let frames: Int

    private var handle: OpaquePointer?

    /// Opens `path` for reading.
    public init(path: String) throws(AudioFileError) {
        var info = SF_INFO()
        guard let opened = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(.openFailed, path: path,
                                 message: "cannot open for reading: " + Sndfile.message(nil),
                                 hint: "check the path; libsndfile reads WAV, FLAC, AIFF, Ogg and more")
        }
        handle = opened
        self.path = path
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        frames = Int(info.frames)
    }

    deinit {
        if let handle { sf_close(handle) }
    }

    /// Reads up to `frames` interleaved frames into `buffer` from the current position and
    /// returns how many it read: fewer than asked only at the end of the file.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(AudioFileError) -> Int {
        guard let open = handle else {
            throw AudioFileError(.closed, path: path, message: "read after close")
        }
        guard frames >= 0, buffer.count >= frames * channels else {
            throw AudioFileError(.invalidArgument, path: path,
                                 message: "\(frames) frames of \(channels) channels need \(frames * channels) samples, got \(buffer.count)")
        }
        guard frames > 0, let base = buffer.baseAddress else { return 0 }
        let read = sf_readf_float(open, base, sf_count_t(frames))
        guard read >= 0, sf_error(open) == 0 else {
            throw AudioFileError(.readFailed, path: path, message: "cannot read: " + Sndfile.message(open))
        }
        return Int(read)
    }

    /// Moves the read position to `frame` (0 is the start).
    public func seek(toFrame frame: Int) throws(AudioFileError) {
        guard let open = handle else {
            throw AudioFileError(.closed, path: path, message: "seek after close")
        }
        guard sf_seek(open, sf_count_t(frame), SEEK_SET) == sf_count_t(frame) else {
            throw AudioFileError(.readFailed, path: path,
                                 message: "cannot seek to frame \(frame): " + Sndfile.message(open))
        }
    }

    /// Reads the whole file from its start and returns one array per channel.
    public func readAll() throws(AudioFileError) -> [[Float]] {
        if frames > 0 { try seek(toFrame: 0) }
        let chunkFrames = 4_096
        var result = Array(repeating: [Float](), count: channels)
        for channel in result.indices { result[channel].reserveCapacity(max(frames, 0)) }
        let chunk = UnsafeMutableBufferPointer<Float>.allocate(capacity: chunkFrames * channels)
        defer { chunk.deallocate() }
        while true {
            let read = try self.read(into: chunk, frames: chunkFrames)
            if read == 0 { break }
            for frame in 0..<read {
                for channel in 0..<channels {
                    result[channel].append(chunk[frame * channels + channel])
                }
            }
        }
        return result
    }

    /// Closes the file; further reads throw ``AudioFileError/Code/closed``.
    public func close() {
        guard let open = handle else { return }
        handle = nil
        sf_close(open)
    }
}
