import AudioFiles
import RenderCore

/// Writes each app's output, after its session gain, to `DIRECTORY/APP.wav` (one channel per
/// output port), so levels can be measured per app.
public final class StemRecorder {
    private struct Stem {
        let app: String
        let ports: [String]
        let writer: SoundFileWriter
    }

    private let stems: [Stem]
    public var apps: [String] { stems.map(\.app) }

    /// One file per app that has outputs (`apps`: each app's id and its output ports' names).
    public init(directory: String, apps: [(id: String, outputs: [String])], sampleRate: Int, format: SampleFormat) throws(AudioFileError) {
        var stems: [Stem] = []
        for app in apps where !app.outputs.isEmpty {
            let writer = try SoundFileWriter(path: "\(directory)/\(app.id).wav", sampleRate: sampleRate,
                                             channels: app.outputs.count, format: format)
            stems.append(Stem(app: app.id, ports: app.outputs, writer: writer))
        }
        self.stems = stems
    }

    /// Appends the cycle `plan` just rendered (`frames` long).
    public func record(_ plan: RenderPlan, frames: Int) throws(AudioFileError) {
        for stem in stems {
            let buffers = stem.ports.compactMap { plan.outputBuffer(app: stem.app, port: $0) }
                .map { UnsafeBufferPointer(start: $0, count: frames) }
            try stem.writer.write(channels: buffers, frames: frames)
        }
    }

    public func close() throws(AudioFileError) {
        for stem in stems { try stem.writer.close() }
    }
}
