import AudioFiles
import Foundation
import Testing

/// Levels and audio-file reading shared by the Engine tests (paths and folders: TestKit).
enum EngineTestSupport {
    /// The linear gain of a level in decibels, as graph files write `"-6dB"`.
    static func linear(decibels: Double) -> Double {
        pow(10, decibels / 20)
    }
}

/// A rendered audio file read back whole: its header facts and one array per channel.
struct RenderedFile {
    let sampleRate: Int
    let frames: Int
    let channels: [[Float]]

    init(path: String) throws {
        let reader = try SoundFileReader(path: path)
        sampleRate = reader.sampleRate
        frames = reader.frames
        channels = try reader.readAll()
        reader.close()
    }

    /// True when every sample of every channel is a finite number.
    var isFinite: Bool {
        channels.allSatisfy { $0.allSatisfy(\.isFinite) }
    }
}
