import AudioFiles
import AudioGraph

/// Renders a plan for a given duration into an audio file, one cycle at a time.
public struct OfflineRender {
    public let backend: OfflineBackend
    public let channels: PlaybackChannels

    public init(backend: OfflineBackend, channels: PlaybackChannels) {
        self.backend = backend
        self.channels = channels
    }

    /// Renders `frames` frames into `path` (32-bit float WAV unless the format says otherwise),
    /// calling `progress` with the fraction done after each cycle.
    public func render(frames: Int, to path: String, format: SampleFormat = .float32,
                       progress: (Double) -> Void = { _ in }) throws {
        let writer = try SoundFileWriter(path: path, sampleRate: Int(backend.sampleRate),
                                         channels: channels.channels.count, format: format)
        let block = backend.maximumFrames
        let channelBuffers = channels.channels.map { _ in UnsafeMutableBufferPointer<Float>.allocate(capacity: block) }
        defer { channelBuffers.forEach { $0.deallocate() } }
        var done = 0
        while done < frames {
            let count = min(block, frames - done)
            if let plan = backend.renderCycle(frames: count) {
                mix(plan, into: channelBuffers, frames: count)
            } else {
                channelBuffers.forEach { $0.update(repeating: 0) }
            }
            try writer.write(channels: channelBuffers.map { UnsafeBufferPointer(rebasing: $0[0..<count]) }, frames: count)
            done += count
            progress(Double(done) / Double(frames))
        }
        try writer.close()
    }

    /// Sums each channel's app outputs from the cycle just rendered.
    func mix(_ plan: RenderPlan, into buffers: [UnsafeMutableBufferPointer<Float>], frames: Int) {
        for (channel, references) in channels.channels.enumerated() {
            let out = buffers[channel]
            for frame in 0..<frames { out[frame] = 0 }
            for reference in references {
                guard let source = plan.outputBuffer(app: reference.app, port: reference.port) else { continue }
                for frame in 0..<frames { out[frame] += source[frame] }
            }
        }
    }
}
