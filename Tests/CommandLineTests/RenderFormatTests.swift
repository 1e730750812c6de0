import Foundation
import Testing
import TestKit

/// `iaa render` picks the sample format from the container, writes float WAV that common tools
/// read without a warning, and shows the time left while it works.
@Suite("iaa render's file formats", .serialized)
struct RenderFormatTests {
    static func render(_ output: String, _ extra: [String] = []) throws -> CommandResult {
        try IAACommand.run(["render", Repository.root + "/graphs/demo.json", "-o", output, "-d", "1s"] + extra)
    }

    static func soxi(_ arguments: [String]) throws -> CommandResult {
        try runCommand("soxi", arguments)
    }

    static func temporary(_ name: String) -> String {
        NSTemporaryDirectory() + "iaa-format-\(UUID().uuidString)-" + name
    }

    @Test("without --format, .flac and .ogg render (24-bit FLAC), and .wav is float")
    func defaultsFollowTheContainer() throws {
        for (name, encoding) in [("out.flac", "24-bit FLAC"), ("out.ogg", "Vorbis"), ("out.wav", "32-bit Floating Point PCM")] {
            let path = Self.temporary(name)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let result = try Self.render(path)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let info = try Self.soxi([path])
            #expect(info.status == 0 && info.output.contains(encoding), "\(name): \(info.output)")
        }
    }

    @Test("a float WAV has the fmt extension size, so soxi reads it without a warning")
    func floatWAVReadsWithoutWarning() throws {
        let path = Self.temporary("float.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try Self.render(path, ["--format", "float32"]).status == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(40))
        // "fmt " of 18 bytes: IEEE float (3) with cbSize 0.
        #expect(Array(bytes[12..<20]) == [0x66, 0x6D, 0x74, 0x20, 18, 0, 0, 0])
        #expect(bytes[20] == 3 && bytes[36] == 0 && bytes[37] == 0)
        let info = try Self.soxi([path])
        #expect(info.status == 0 && !info.output.contains("WARN"), "\(info.output)")
        #expect(info.output.contains("Duration       : 00:00:01.00 = 48000 samples"), "\(info.output)")
    }

    @Test("an explicit format a container cannot hold is refused and says what it holds")
    func impossibleFormatIsRefused() throws {
        let path = Self.temporary("out.flac")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Self.render(path, ["--format", "float32"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("FLAC holds pcm16 or pcm24"), "\(result.stderr)")
    }

    @Test("progress lines show the time left")
    func progressShowsETA() throws {
        let path = Self.temporary("eta.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Self.render(path)
        #expect(result.stderr.contains("render: 50% (0.50 s of 1.0 s, ETA "), "\(result.stderr)")
    }
}
