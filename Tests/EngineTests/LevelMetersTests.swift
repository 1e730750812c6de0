import ControlSocket
@testable import Engine
import Foundation
import Testing

/// The `meters` stream (the dashboard's level meters) and `top`'s peak, which read the same
/// counters of the running plan, on the live core with an in-memory server.
@Suite("Level meters")
struct LevelMetersTests {
    /// A tone of amplitude 0.5 (peak −6.02 dBFS, RMS −9.03 dBFS) and a gain with nothing at its
    /// input (silence).
    static let graph = """
        { "format": "iaa-graph/1", "name": "levels",
          "apps": [ { "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": 1000, "amplitude": 0.5 } },
                    { "id": "quiet", "plugin": "builtin:gain" } ] }
        """

    static func level(_ line: ControlJSON?, _ app: String) -> MetersUpdate.Level? {
        line.flatMap(MetersUpdate.init(json:))?.levels.first { $0.id == app }
    }

    @Test("a meters line holds each app's peak and RMS since the last one; silence is -200")
    func levels() throws {
        let live = try LiveCore(Self.graph)
        live.core.queue.sync { live.core.watch.publishMeters() }  // metering starts with the first line
        for _ in 0..<40 { live.backend.render(frames: 256) }
        live.core.queue.sync { live.core.watch.publishMeters() }
        let lines = live.lines("meters")
        #expect(lines.count == 2)
        let tone = try #require(Self.level(lines.last, "tone"))
        #expect(abs((tone.peak ?? 0) - 20 * log10(0.5)) < 0.05, "peak \(String(describing: tone.peak))")
        #expect(abs((tone.rms ?? 0) - 20 * log10(0.5 / 2.0.squareRoot())) < 0.05, "rms \(String(describing: tone.rms))")
        let quiet = try #require(Self.level(lines.last, "quiet"))
        #expect(quiet.peak == nil && quiet.rms == nil)
        #expect(lines.last?["meters"]?.arrayValue?.first { $0["id"]?.stringValue == "quiet" }?["peak"]?.doubleValue == TopUpdate.silence)

        // Nothing rendered since: the next line measures no frame.
        live.core.queue.sync { live.core.watch.publishMeters() }
        #expect(Self.level(live.lines("meters").last, "tone")?.rms == nil)
    }

    @Test("what the meters took is still in top's next line: top's peak spans every take since its last line")
    func topKeepsWhatMetersTook() throws {
        let live = try LiveCore(Self.graph)
        live.core.queue.sync { live.core.watch.publishMeters() }
        for _ in 0..<10 { live.backend.render(frames: 256) }
        live.core.queue.sync { live.core.watch.publishMeters() }
        #expect(Self.level(live.lines("meters").last, "tone")?.peak != nil)
        live.core.queue.sync { live.core.watch.publishTop() }
        let top = try #require(live.lines("top").last.flatMap(TopUpdate.init(json:)))
        let tone = try #require(top.apps.first { $0.id == "tone" })
        #expect(abs((tone.peak ?? 0) - 20 * log10(0.5)) < 0.05, "top's peak \(String(describing: tone.peak))")

        // Taken by top: the next top line starts afresh.
        live.core.queue.sync { live.core.watch.publishTop() }
        #expect(live.lines("top").last.flatMap(TopUpdate.init(json:))?.apps.first { $0.id == "tone" }?.peak == nil)
    }
}
