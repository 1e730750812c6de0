import Testing
import AudioFiles
import TestKit

/// A deterministic test signal in (−1, 1) with varied, non-round values.
private func signal(channel: Int, frames: Int) -> [Float] {
    (0..<frames).map { frame in
        Float((frame &* 7_919 &+ channel &* 104_729) % 2_001 - 1_000) / 1_001
    }
}

@Suite("SoundFile writing and reading")
struct SoundFileTests {
    @Test("float32 WAV reads back bit for bit, with its rate, channels and length")
    func float32RoundTrip() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("take.wav")
        let written = [signal(channel: 0, frames: 10_000), signal(channel: 1, frames: 10_000)]
        let writer = try SoundFileWriter(path: path, sampleRate: 44_100, channels: 2)
        try writer.write(written)
        #expect(writer.framesWritten == 10_000)
        try writer.close()

        let reader = try SoundFileReader(path: path)
        #expect(reader.sampleRate == 44_100)
        #expect(reader.channels == 2)
        #expect(reader.frames == 10_000)
        #expect(try reader.readAll() == written)
    }

    @Test("integer formats read back within one quantization step",
          arguments: [("pcm16.wav", SampleFormat.pcm16, 1.0 / 32_768), ("pcm24.wav", .pcm24, 1.0 / 8_388_608),
                      ("pcm16.flac", .pcm16, 1.0 / 32_768), ("pcm24.aiff", .pcm24, 1.0 / 8_388_608)] as [(String, SampleFormat, Float)])
    func integerRoundTrip(name: String, format: SampleFormat, tolerance: Float) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file(name)
        let written = signal(channel: 3, frames: 5_000)
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channels: 1, format: format)
        try writer.write([written])
        try writer.close()

        let read = try SoundFileReader(path: path).readAll()
        #expect(read.count == 1)
        let samples = try #require(read.first)
        #expect(samples.count == written.count)
        let worst = zip(samples, written).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= tolerance)
    }

    @Test("integer formats clip over-range samples instead of wrapping them")
    func clipping() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("loud.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channels: 1, format: .pcm16)
        try writer.write([[1.5, -1.5, 0.5]])
        try writer.close()
        let samples = try SoundFileReader(path: path).readAll()[0]
        #expect(samples[0] > 0.99)
        #expect(samples[1] <= -0.99)
        #expect(abs(samples[2] - 0.5) <= 1.0 / 32_768)
    }

    @Test("per-channel buffers are interleaved, across more frames than one chunk")
    func channelBuffers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("three.wav")
        let written = (0..<3).map { signal(channel: $0, frames: 10_007) }
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channels: 3)
        try written[0].withUnsafeBufferPointer { a in
            try written[1].withUnsafeBufferPointer { b in
                try written[2].withUnsafeBufferPointer { c in
                    try writer.write(channels: [a, b, c], frames: 10_007)
                }
            }
        }
        try writer.close()
        #expect(try SoundFileReader(path: path).readAll() == written)
    }

    @Test("interleaved writes append and interleaved reads continue where they stopped")
    func interleavedChunks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chunks.wav")
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channels: 2)
        let first: [Float] = [0.1, -0.1, 0.2, -0.2]
        let second: [Float] = [0.3, -0.3]
        try first.withUnsafeBufferPointer { try writer.write(interleaved: $0, frames: 2) }
        try second.withUnsafeBufferPointer { try writer.write(interleaved: $0, frames: 1) }
        try writer.close()

        let reader = try SoundFileReader(path: path)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        #expect(try reader.read(into: buffer, frames: 2) == 2)
        #expect(Array(buffer) == first)
        #expect(try reader.read(into: buffer, frames: 2) == 1)
        #expect(Array(buffer.prefix(2)) == second)
        #expect(try reader.read(into: buffer, frames: 2) == 0)
        #expect(try reader.readAll() == [[0.1, 0.2, 0.3], [-0.1, -0.2, -0.3]])
    }

    @Test("Ogg Vorbis writes a lossy file of about the same level")
    func oggVorbis() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tone.ogg")
        let tone = (0..<48_000).map { Float(0.5) * sine(Double($0) * 440 / 48_000) }
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channels: 1)
        try writer.write([tone])
        try writer.close()
        let read = try SoundFileReader(path: path).readAll()[0]
        #expect(abs(read.count - tone.count) < 2_048)
        #expect(abs(rms(read) - rms(tone)) < 0.02)
    }

    @Test("a missing file is reported with its path and libsndfile's reason")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/missing.wav"
        let error = try #require(throws: AudioFileError.self) { try SoundFileReader(path: path) }
        #expect(error.code == .openFailed)
        #expect(error.path == path)
        #expect(error.description.hasPrefix(path + ": error[openFailed]: cannot open for reading: "))
        #expect(error.description.contains("No such file"))
        #expect(error.hint != nil)
    }

    @Test("an unwritable path is reported with its path and libsndfile's reason")
    func unwritablePath() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/no-such-folder/take.wav"
        let error = try #require(throws: AudioFileError.self) {
            try SoundFileWriter(path: path, sampleRate: 48_000, channels: 2)
        }
        #expect(error.code == .openFailed)
        #expect(error.description.hasPrefix(path + ": error[openFailed]: cannot open for writing: "))
        #expect(error.description.contains("No such file"))
        #expect(error.description.contains("\n  hint: "))
    }

    @Test("an unknown extension and a format the container cannot hold are refused up front")
    func unsupported() throws {
        let directory = try TemporaryDirectory()
        let mp3 = try #require(throws: AudioFileError.self) {
            try SoundFileWriter(path: directory.path + "/take.mp3", sampleRate: 48_000, channels: 1)
        }
        #expect(mp3.code == .unsupportedFormat)
        #expect(mp3.hint?.contains(".flac") == true)
        let flac = try #require(throws: AudioFileError.self) {
            try SoundFileWriter(path: directory.path + "/take.flac", sampleRate: 48_000, channels: 1, format: .float32)
        }
        #expect(flac.code == .unsupportedFormat)
        #expect(flac.hint?.contains("pcm16") == true)
    }

    @Test("writing after close, and a wrong channel count, are errors")
    func misuse() throws {
        let directory = try TemporaryDirectory()
        let writer = try SoundFileWriter(path: directory.file("closed.wav"), sampleRate: 48_000, channels: 2)
        #expect(throws: AudioFileError.self) { try writer.write([[0.5]]) }
        try writer.close()
        let error = try #require(throws: AudioFileError.self) { try writer.write([[0.5], [0.5]]) }
        #expect(error.code == .closed)
    }

    @Test("the container follows the extension, case-insensitively, WAV without one")
    func containers() {
        #expect(AudioContainer(path: "/a/b.WAV") == .wav)
        #expect(AudioContainer(path: "b.flac") == .flac)
        #expect(AudioContainer(path: "b.aif") == .aiff)
        #expect(AudioContainer(path: "b.ogg") == .ogg)
        #expect(AudioContainer(path: "/a.d/take") == .wav)
        #expect(AudioContainer(path: "/a/.hidden") == .wav)
        #expect(AudioContainer(path: "b.mp3") == nil)
    }
}

/// sin(2π·cycles) from the Taylor series, so the test needs no libm import.
private func sine(_ cycles: Double) -> Float {
    let r = cycles - cycles.rounded()
    let t = 2 * Double.pi * r
    var term = t
    var sum = t
    for n in stride(from: 3, through: 31, by: 2) {
        term *= -t * t / Double((n - 1) * n)
        sum += term
    }
    return Float(sum)
}

private func rms(_ samples: [Float]) -> Float {
    guard !samples.isEmpty else { return 0 }
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return Float((sum / Double(samples.count)).squareRoot())
}
