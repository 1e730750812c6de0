import AudioFiles
import Foundation
import TestKit

/// A `jack_rec` take of a port while something changes the engine underneath it (an apply, a
/// reload), with what may have left a gap in it that is not the engine's doing: xruns JACK
/// reported meanwhile (any client late on a busy machine, jack_rec's included, each a missed
/// cycle) and jack_rec's own overruns (its disk thread late, frames dropped). A click test over
/// a take with a gap tells nothing either way: the caller takes it again, changing the engine
/// again; a jump in a take with no gap is the engine's.
struct GuardedTake {
    /// The take, after its first 50 ms (jack_rec connects after it starts writing).
    let samples: [Float]
    /// Why the take may have a gap, or nil when nothing says so.
    let gap: String?

    /// Records `port` for `seconds` with `jack_rec`, runs `change` 0.7 s in, and reads back the
    /// take. `xruns` reads JACK's xrun count (the engine's `status`).
    static func record(_ port: String, seconds: Int, xruns: () throws -> Int, around change: () throws -> Void) throws -> GuardedTake {
        let directory = try JackHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("take.wav").path
        let before = try xruns()
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/jack_rec")
        recorder.arguments = ["-f", file, "-d", String(seconds), port]
        let errors = Pipe()
        recorder.standardOutput = FileHandle.nullDevice
        recorder.standardError = errors
        try recorder.run()
        defer { if recorder.isRunning { recorder.terminate() } }
        usleep(700_000)
        try change()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        recorder.waitUntilExit()
        let late = try xruns() - before
        var gap: [String] = []
        if late > 0 { gap.append("JACK reported \(late) xruns") }
        if said.contains("overrun") { gap.append("jack_rec: \(said.trimmingCharacters(in: .whitespacesAndNewlines))") }
        return GuardedTake(samples: Array(try SoundFileReader(path: file).readAll()[0].dropFirst(2_400)),
                           gap: gap.isEmpty ? nil : gap.joined(separator: "; "))
    }
}
