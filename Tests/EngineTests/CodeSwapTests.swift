import AudioGraph
@testable import Engine
import Foundation
import GraphFormat
import NodeKit
import OfflineBackend
import RenderCore
import Synchronization
import Testing

/// ``CodeSwap`` waits for the cycles that play the old node's fade, not for a time: a server
/// whose cycles come late must not get the new plan before the old node has faded.
@Suite("Swapping a rebuilt node's code")
struct CodeSwapTests {
    /// An offline backend whose cycles a thread of the test renders, counted as JACK's are.
    final class ThreadCycles: ControlBackend, @unchecked Sendable {
        let offline = OfflineBackend(sampleRate: 48_000, blockSize: 256)
        let rendered = Atomic<Int64>(0)
        /// The loudest sample of each cycle's tone output, in the order rendered.
        let peaks = Mutex<[Float]>([])

        var sampleRate: Double { offline.sampleRate }
        var maximumFrames: Int { offline.maximumFrames }
        func install(_ plan: RenderPlan) throws { offline.install(plan) }
        var currentPlan: RenderPlan? { offline.currentPlan }
        var currentBufferSize: Int { offline.currentBufferSize }
        var renderedCycles: Int64? { rendered.load(ordering: .acquiring) }
        func injectMIDI(_ event: MIDIEvent, app: String) -> Bool { false }
        func setPlaying(_ playing: Bool) {}
        func connectPorts(_ pair: PortPair) -> PortConnectionResult { .failed("offline") }
        func disconnectPorts(_ pair: PortPair) -> Bool { false }

        func renderCycle() {
            guard let plan = offline.renderCycle(frames: 256), let out = plan.outputBuffer(app: "tone", port: "out") else { return }
            let peak = UnsafeBufferPointer(start: out, count: 256).map(abs).max() ?? 0
            peaks.withLock { $0.append(peak) }
            rendered.add(1, ordering: .releasing)
        }
    }

    @Test("the new plan waits for the cycles that fade the old node out, even when they come 50 ms late")
    func waitsForLateCycles() throws {
        let loaded = GraphFile.load(text: """
            { "format": "iaa-graph/1", "name": "swap",
              "apps": [ { "id": "tone", "plugin": "builtin:oscillator", "params": { "frequency": 1000, "amplitude": 0.5 } } ] }
            """, file: "graph.json", registry: GraphLoading.registry)
        let graph = try #require(loaded.graph, "\(loaded.errors.map(\.formatted))")
        let ramp = graph.policy.rampSeconds
        // Two builders: the second's node is another instance, as a rebuilt library's would be.
        let running = try PlanBuilder(sampleRate: 48_000, maximumFrames: 256, gainRampSeconds: ramp).plan(for: graph, fresh: true)
        let rebuilt = try PlanBuilder(sampleRate: 48_000, maximumFrames: 256, gainRampSeconds: ramp).plan(for: graph, fresh: true)
        let backend = ThreadCycles()
        try backend.install(running)
        for _ in 0..<4 { backend.renderCycle() }
        #expect(backend.peaks.withLock { $0.last ?? 0 } > 0.45, "the tone plays before the swap")

        let swap = CodeSwap(apps: ["tone"], running: running, plan: rebuilt)
        #expect(!swap.isEmpty)
        // The audio thread: nothing for 50 ms (three periods and more), then a cycle a millisecond.
        let stop = Atomic<Bool>(false)
        let audio = Thread {
            usleep(50_000)
            while !stop.load(ordering: .acquiring) {
                backend.renderCycle()
                usleep(1_000)
            }
        }
        audio.start()
        swap.fadeOut(rampSeconds: ramp, on: backend)
        // When it returns, the cycles after the one under way have played the whole ramp.
        let cycles = 1 + Int((ramp * 48_000).rounded(.up) + 255) / 256
        let peaks = backend.peaks.withLock { $0 }
        stop.store(true, ordering: .releasing)
        while !audio.isFinished { usleep(1_000) }
        #expect(peaks.count >= 4 + cycles, "returned after \(peaks.count - 4) cycles of the \(cycles) that play the fade")
        #expect(peaks.last == 0, "the old node was still heard when the new plan could go in: \(peaks)")
    }

    @Test("where cycles run only between commands (offline), there is nothing to wait for: no quarter second spent waiting")
    func offlineDoesNotWait() throws {
        let loaded = GraphFile.load(text: """
            { "format": "iaa-graph/1", "name": "swap", "apps": [ { "id": "tone", "plugin": "builtin:oscillator" } ] }
            """, file: "graph.json", registry: GraphLoading.registry)
        let graph = try #require(loaded.graph)
        let running = try PlanBuilder(sampleRate: 48_000, maximumFrames: 256, gainRampSeconds: 0.005).plan(for: graph, fresh: true)
        let rebuilt = try PlanBuilder(sampleRate: 48_000, maximumFrames: 256, gainRampSeconds: 0.005).plan(for: graph, fresh: true)
        let backend = OfflineBackend(sampleRate: 48_000, blockSize: 256)
        backend.install(running)
        let started = ContinuousClock.now
        CodeSwap(apps: ["tone"], running: running, plan: rebuilt).fadeOut(rampSeconds: 0.005, on: backend)
        // Counting cycles that never come would wait out the quarter-second deadline.
        #expect(ContinuousClock.now - started < .milliseconds(200))
    }
}
