import AudioFiles
import Foundation
import Testing

/// Paths, temporary files and audio-file reading shared by the Engine tests.
enum EngineTestSupport {
    /// The package root, found from this file's path so that tests run from any directory.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Every example graph in `graphs/` (not the schema, not timelines), as package-relative paths.
    static let exampleGraphs: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/graphs")) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "graph.schema.json" && !$0.hasSuffix(".timeline.json") && !$0.hasSuffix(".grants.json") }
            .sorted().map { "graphs/" + $0 }
    }()

    /// An absolute path for a package-relative one.
    static func absolute(_ relativePath: String) -> String {
        packageRoot + "/" + relativePath
    }

    /// The linear gain of a level in decibels, as graph files write `"-6dB"`.
    static func linear(decibels: Double) -> Double {
        pow(10, decibels / 20)
    }
}

/// A fresh temporary directory, removed with everything in it when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("iaa-engine-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path for `name` inside the directory.
    func file(_ name: String) -> String {
        path + "/" + name
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
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
