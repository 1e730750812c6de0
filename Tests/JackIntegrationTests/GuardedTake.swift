import AudioFiles
import Foundation
import TestKit

/// A `jack_rec` take of a port while something changes the engine underneath it (an apply, a
/// reload), with what may have left a gap in it that is not the change's doing: xruns JACK
/// reported meanwhile (any client late on a busy machine, jack_rec's included, each a missed
/// cycle), an isolated app's late cycles (its child kept off the CPU: silence, by design) and
/// jack_rec's own overruns (its disk thread late, frames dropped). A click test over a take with
/// a gap tells nothing either way: the caller takes it again, changing the engine again; a jump
/// in a take with no gap is the change's.
struct GuardedTake {
    /// The take, after its first 50 ms (jack_rec connects after it starts writing).
    let samples: [Float]
    /// Why the take may have a gap, or nil when nothing says so.
    let gap: String?

    /// The largest step between neighbouring samples, where it is, and the samples around it.
    struct Step: CustomStringConvertible {
        let size: Float
        let frame: Int
        let around: ArraySlice<Float>
        let count: Int
        var description: String {
            "a step of \(size) at frame \(frame) of \(count) (\(around.map { String(format: "%.4f", $0) }.joined(separator: " ")))"
        }
    }

    var largestStep: Step {
        var size: Float = 0, frame = 0
        for index in samples.indices.dropLast() where abs(samples[index + 1] - samples[index]) > size {
            size = abs(samples[index + 1] - samples[index])
            frame = index
        }
        return Step(size: size, frame: frame, around: samples[max(frame - 4, 0)..<min(frame + 6, samples.count)], count: samples.count)
    }

    /// What may have left a gap, in a failure's words.
    var gapSaid: String { gap ?? "no xrun, no late cycle, no overrun" }

    /// Records `port` for `seconds` with `jack_rec`, runs `change` 0.7 s in, and reads back the
    /// take. `gaps` reads what counts the gaps (from the engine's `status`: JACK's xruns, an
    /// isolated app's late cycles); a take during which it moved may have one.
    static func record(_ port: String, seconds: Int, gaps: () throws -> Int, around change: () throws -> Void) throws -> GuardedTake {
        let directory = try JackHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("take.wav").path
        let before = try gaps()
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/jack_rec")
        recorder.arguments = ["-f", file, "-d", String(seconds), port]
        let errors = directory.appendingPathComponent("jack_rec.log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        recorder.standardOutput = FileHandle.nullDevice
        recorder.standardError = try FileHandle(forWritingTo: errors)
        try recorder.run()
        defer { recorder.end(with: SIGKILL) }
        usleep(700_000)
        try change()
        let finished = recorder.waitForExit(seconds: Double(seconds) + 10)
        let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        guard finished else { throw GuardedTakeError(message: "jack_rec \(port) for \(seconds) s had not finished 10 s later; it said: \(said)") }
        let after = try gaps()
        var gap: [String] = []
        if after != before { gap.append("xruns and late cycles went from \(before) to \(after)") }
        if said.contains("overrun") { gap.append("jack_rec: \(said.trimmingCharacters(in: .whitespacesAndNewlines))") }
        return GuardedTake(samples: Array(try SoundFileReader(path: file).readAll()[0].dropFirst(2_400)),
                           gap: gap.isEmpty ? nil : gap.joined(separator: "; "))
    }
}

struct GuardedTakeError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
