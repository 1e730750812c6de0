import AudioGraph
import RenderCore
import Engine
import GraphFormat
import NodeKit
import Testing

/// An outside (JACK) signal meeting a latent path inside the graph (docs/latency.md): the same
/// signal into a latent node `fx` and straight into the mixer's `in_1`, rendered by the real
/// renderer from plans the engine's `PlanBuilder` makes, with the backend's buffers for the
/// outside ports filled by hand as JACK's cycle fills them.
@Suite("Compensation of outside signals")
struct OutsideCompensationTests {
    static let lag = 100
    static let frames = 64

    static func graph(compensate: Bool) throws -> Graph {
        let latency = compensate ? "" : #""latency": { "compensate": false },"#
        return try #require(GraphFile.load(text: """
            { "format": "iaa-graph/1", "name": "outside", \(latency)
              "apps": [ { "id": "fx", "plugin": "builtin:passthrough" },
                        { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } } ],
              "connections": [ { "from": "fx:out", "to": "mix:in_2" } ] }
            """, file: "outside.json", registry: GraphLoading.registry).graph)
    }

    /// The engine's way to a first plan: built, warmed up (the nodes report their latency),
    /// built again aligned from its first frame. `fx` is a delay of `lag` frames that says so.
    static func plan(compensate: Bool) throws -> (RenderPlan, PlanBuilder) {
        let graph = try graph(compensate: compensate)
        let builder = PlanBuilder(sampleRate: 48_000, maximumFrames: frames)
        builder.instances.nodeFactory = { app in
            app.id == "fx" ? LatentDelay(lag: lag) : try app.type.makeNode(app.configuration)
        }
        var plan = try builder.plan(for: graph, fresh: true)
        PlanBuilder.warmUp(plan)
        if plan.latencyChanged { plan = try builder.plan(for: graph, fresh: true) }
        return (plan, builder)
    }

    /// Renders `signal` (nil: nothing connected) into fx's and the mixer's `in_1` outside ports,
    /// cycle by cycle, and returns what the mixer wrote.
    static func render(_ plan: RenderPlan, _ signal: [Float]?, cycles: Int, from start: Int) throws -> [Float] {
        let ports = plan.externalPorts
        let fxIn = try #require(ports.firstIndex { $0.appID == "fx" && $0.direction == .input })
        let mixIn = try #require(ports.firstIndex { $0.appID == "mix" && $0.portName == "in_1" })
        var result: [Float] = []
        for cycle in 0..<cycles {
            let offset = cycle * frames
            let chunk = signal.map { Array($0[offset..<(offset + frames)]) } ?? []
            chunk.withUnsafeBufferPointer { buffer in
                for port in [fxIn, mixIn] { plan.externalInputs[port] = signal == nil ? nil : buffer.baseAddress }
                Renderer.render(plan, RenderContext(frames: frames, sampleTime: Int64(start + offset)))
                for port in [fxIn, mixIn] { plan.externalInputs[port] = nil }
            }
            let out = try #require(plan.outputBuffer(app: "mix", port: "out"))
            result.append(contentsOf: UnsafeBufferPointer(start: out, count: frames))
        }
        return result
    }

    static func ramp(_ count: Int, scale: Float) -> [Float] { (0..<count).map { Float($0 % 97) * scale } }

    @Test("compensated, the outside signal waits for the latent path: the mixer hears 2·x[n − lag], sample for sample")
    func aligned() throws {
        let (plan, _) = try Self.plan(compensate: true)
        #expect(plan.latency.outsideDelay(1) == Self.lag)
        let x = Self.ramp(40 * Self.frames, scale: 0.01)
        let mix = try Self.render(plan, x, cycles: 40, from: 0)
        for n in mix.indices {
            let expected = n < Self.lag ? 0 : 2 * x[n - Self.lag]
            guard mix[n] == expected else {
                Issue.record("frame \(n): \(mix[n]), expected \(expected)")
                return
            }
        }
    }

    @Test("not compensated, the outside signal is heard as it comes: x[n] + x[n − lag]")
    func notCompensated() throws {
        let (plan, _) = try Self.plan(compensate: false)
        let x = Self.ramp(20 * Self.frames, scale: 0.01)
        let mix = try Self.render(plan, x, cycles: 20, from: 0)
        let worst = mix.indices.map { abs(mix[$0] - (x[$0] + ($0 < Self.lag ? 0 : x[$0 - Self.lag]))) }.max() ?? 1
        #expect(worst == 0)
    }

    @Test("unplugged, the line gives back what it held and then nothing: plugged in again, nothing stale is heard")
    func unpluggedAndAgain() throws {
        let (plan, _) = try Self.plan(compensate: true)
        let x = Self.ramp(10 * Self.frames, scale: 0.01)
        _ = try Self.render(plan, x, cycles: 10, from: 0)
        // Quiet cycles: no outside port connected anywhere, long enough for the line to empty.
        let quiet = try Self.render(plan, nil, cycles: 10, from: 10 * Self.frames)
        #expect(quiet.suffix(Self.frames).allSatisfy { $0 == 0 })
        // A new signal: heard aligned from its start, with nothing of x before it.
        let y = Self.ramp(10 * Self.frames, scale: -0.02)
        let mix = try Self.render(plan, y, cycles: 10, from: 20 * Self.frames)
        let worst = mix.indices.map { abs(mix[$0] - ($0 < Self.lag ? 0 : 2 * y[$0 - Self.lag])) }.max() ?? 1
        #expect(worst == 0, "largest difference from 2·y[n − lag]: \(worst)")
    }

    @Test("a changed latency moves the outside signal's delay with the path's, the line kept and faded")
    func latencyMoves() throws {
        var (plan, builder) = try Self.plan(compensate: true)
        let graph = try Self.graph(compensate: true)
        let x = Self.ramp(60 * Self.frames, scale: 0.01)
        _ = try Self.render(plan, x, cycles: 10, from: 0)
        let fx = try #require(plan.slot(for: "fx")?.anyNode as? LatentDelay)
        fx.lag = 200
        _ = try Self.render(plan, Array(x[(10 * Self.frames)...]), cycles: 1, from: 10 * Self.frames)
        #expect(plan.latencyChanged)
        let before = plan
        plan = try builder.plan(for: graph, keepingParameters: true)
        #expect(plan.latency.outsideDelay(1) == 200)
        #expect(before.latency.outsideDelay(1) == Self.lag)
        let start = 11 * Self.frames
        let mix = try Self.render(plan, Array(x[start...]), cycles: 40, from: start)
        // After the fade (512 frames) the two paths meet again at the new lag.
        let settled = (start + 1024)..<(start + mix.count)
        let worst = settled.map { abs(mix[$0 - start] - 2 * x[$0 - 200]) }.max() ?? 1
        #expect(worst < 1e-5, "largest difference from 2·x[n − 200] once faded: \(worst)")
    }
}

/// A delay of `lag` frames that reports it, as a lookahead limiter does.
private final class LatentDelay: AudioNode {
    var lag: Int
    private var ring = [Float](repeating: 0, count: 4096)
    private var write = 0

    init(lag: Int) { self.lag = lag }

    func process(_ context: ProcessContext) {
        let input = context.inputs[0], output = context.outputs[0]
        for frame in 0..<context.frames {
            ring[write & 4095] = input[frame]
            output[frame] = ring[(write - lag) & 4095]
            write += 1
        }
        context.latency.report(frames: lag)
    }

    func reset() {
        ring = [Float](repeating: 0, count: 4096)
        write = 0
    }
}
