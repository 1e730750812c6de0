import RenderCore
import NodeKit
import Synchronization
import Testing

/// Isolated apps that do not feed one another run as a wave: every member's cycle is handed
/// over (`begin`), then each is taken back (`finish`), last first. A stand-in for the isolated
/// node does its work in `begin` into buffers of its own and copies them out in `finish`, as a
/// child process would, so the output is right only if every `finish` follows its `begin`.
@Suite("Waves of phased (isolated) nodes")
struct PhasedWaveTests {
    /// a1..a3 oscillators → b1..b3 gains → m (a mixer, in process).
    private static let graph = graphJSON(
        apps: """
            { "id": "a1", "plugin": "builtin:oscillator", "params": { "frequency": 440, "amplitude": 0.5 } },
            { "id": "a2", "plugin": "builtin:oscillator", "params": { "frequency": 550, "amplitude": 0.5 } },
            { "id": "a3", "plugin": "builtin:oscillator", "params": { "frequency": 660, "amplitude": 0.5 } },
            { "id": "b1", "plugin": "builtin:gain", "params": { "gain": 0.5 } },
            { "id": "b2", "plugin": "builtin:gain", "params": { "gain": 0.7 } },
            { "id": "b3", "plugin": "builtin:gain", "params": { "gain": 0.9 } },
            { "id": "m", "plugin": "builtin:mixer", "params": { "inputs": 3 } }
            """,
        connections: """
            { "from": "a1:out", "to": "b1:in" }, { "from": "a2:out", "to": "b2:in" },
            { "from": "a3:out", "to": "b3:in" }, { "from": "b1:out", "to": "m:in_1" },
            { "from": "b2:out", "to": "m:in_2" }, { "from": "b3:out", "to": "m:in_3" }
            """)

    /// Which calls the stand-ins received, in order ("a1 begin", "b3 finish", "a2 process").
    final class CallLog: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        func take() -> [String] { entries.withLock { log in defer { log = [] }; return log } }
    }

    /// The app's real node, run in `begin` into buffers of its own; `finish` copies them out.
    final class StandIn: PhasedNode {
        let app: String
        let inner: any AudioNode
        let log: CallLog
        private var buffers: [UnsafeMutablePointer<Float>] = []
        private var pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?

        init(app: String, inner: any AudioNode, log: CallLog) {
            self.app = app
            self.inner = inner
            self.log = log
        }

        deinit {
            buffers.forEach { $0.deallocate() }
            pointers?.deallocate()
        }

        func prepare(sampleRate: Double, maximumFrames: Int) {
            inner.prepare(sampleRate: sampleRate, maximumFrames: maximumFrames)
            buffers = (0..<4).map { _ in
                let buffer = UnsafeMutablePointer<Float>.allocate(capacity: maximumFrames)
                buffer.initialize(repeating: .nan, count: maximumFrames)
                return buffer
            }
            pointers = .allocate(capacity: buffers.count)
            pointers?.initialize(from: buffers, count: buffers.count)
        }

        func reset() { inner.reset() }

        func process(_ context: ProcessContext) {
            log.add("\(app) process")
            work(context)
            copyOut(context)
        }

        func begin(_ context: ProcessContext) {
            log.add("\(app) begin")
            work(context)
        }

        func finish(_ context: ProcessContext) {
            log.add("\(app) finish")
            copyOut(context)
            // What a later cycle's `finish` without its `begin` would copy: NaN, which mutes the app.
            for buffer in buffers { buffer.update(repeating: .nan, count: context.frames) }
        }

        private func work(_ context: ProcessContext) {
            inner.process(ProcessContext(
                frames: context.frames, sampleRate: context.sampleRate, sampleTime: context.sampleTime,
                inputs: context.inputs,
                outputs: AudioOutputs(base: UnsafePointer(pointers!), count: context.outputs.count, frames: context.frames),
                parameters: context.parameters, midi: context.midi, transport: context.transport))
        }

        private func copyOut(_ context: ProcessContext) {
            for index in 0..<context.outputs.count {
                context.outputs[index].baseAddress!.update(from: buffers[index], count: context.frames)
            }
        }
    }

    /// Every app but the mixer behind a stand-in.
    private func phasedHarness(_ log: CallLog) throws -> PlanHarness {
        try PlanHarness(Self.graph, blockSize: 64) { app in
            let node = try app.type.makeNode(app.configuration)
            return app.id == "m" ? node : StandIn(app: app.id, inner: node, log: log)
        }
    }

    @Test("free isolated apps form waves: all begin, then all finish, last first; the mix is the same, sample for sample")
    func wavesRenderTheSame() throws {
        let log = CallLog()
        let phased = try phasedHarness(log)
        let inProcess = try PlanHarness(Self.graph, blockSize: 64)
        _ = log.take()
        let ports = ["m:out", "b2:out"]
        let got = try phased.render(frames: 64, ports: ports)
        #expect(log.take() == ["a1 begin", "a2 begin", "a3 begin", "a3 finish", "a2 finish", "a1 finish",
                               "b1 begin", "b2 begin", "b3 begin", "b3 finish", "b2 finish", "b1 finish"])
        var want = try inProcess.render(frames: 64, ports: ports)
        #expect(got == want)
        #expect(got[0].contains { abs($0) > 0.1 }, "the mix is not silent")

        // A duck on an oscillator (no output gain of its own) and on a gain (folded into its
        // `gain`): the same ramps as in process, then settled again.
        for harness in [phased, inProcess] {
            try #require(harness.plan.slot(for: "a1")).setPolicyGain(0.25)
            try #require(harness.plan.slot(for: "b2")).setPolicyGain(0.5)
        }
        for _ in 0..<3 {
            #expect(try phased.render(frames: 1_600, ports: ports) == inProcess.render(frames: 1_600, ports: ports))
        }
        want = try inProcess.render(frames: 640, ports: ports)
        #expect(try phased.render(frames: 640, ports: ports) == want)
    }

    @Test("while steps are timed (iaa top, the deadline guard), each isolated app runs alone through process")
    func timedStepsRunAlone() throws {
        let log = CallLog()
        let harness = try phasedHarness(log)
        _ = log.take()
        Renderer.render(harness.plan, RenderContext(frames: 64, sampleTime: 0), metering: true)
        #expect(log.take() == ["a1 process", "a2 process", "a3 process", "b1 process", "b2 process", "b3 process"])
        let timed = try #require(harness.plan.outputBuffer(app: "m", port: "out"))
        let mix = Array(UnsafeBufferPointer(start: timed, count: 64))
        #expect(mix.allSatisfy { $0.isFinite } && mix.contains { abs($0) > 0.1 })
    }
}
