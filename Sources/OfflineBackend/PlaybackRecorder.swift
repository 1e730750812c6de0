import AudioFiles
import RenderCore

/// Writes what the playback bus hears after each cycle: each channel sums its app outputs.
public final class PlaybackRecorder {
    public let channels: PlaybackChannels
    private let writer: SoundFileWriter
    private let buffers: [UnsafeMutableBufferPointer<Float>]

    public init(path: String, channels: PlaybackChannels, sampleRate: Int, format: SampleFormat,
                maximumFrames: Int) throws(AudioFileError) {
        self.channels = channels
        writer = try SoundFileWriter(path: path, sampleRate: sampleRate, channels: channels.channels.count, format: format)
        buffers = channels.channels.map { _ in
            let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: maximumFrames)
            buffer.initialize(repeating: 0)
            return buffer
        }
    }

    deinit {
        buffers.forEach { $0.deallocate() }
    }

    /// Appends the cycle `plan` just rendered (`frames` long).
    public func record(_ plan: RenderPlan, frames: Int) throws(AudioFileError) {
        for (channel, references) in channels.channels.enumerated() {
            let out = buffers[channel]
            for frame in 0..<frames { out[frame] = 0 }
            for reference in references {
                guard let source = plan.outputBuffer(app: reference.app, port: reference.port) else { continue }
                for frame in 0..<frames { out[frame] += source[frame] }
            }
        }
        try writer.write(channels: buffers.map { UnsafeBufferPointer(rebasing: $0[0..<frames]) }, frames: frames)
    }

    public func close() throws(AudioFileError) {
        try writer.close()
    }
}
