import AudioGraph
import RenderCore
import Nodes
import Testing

/// Publishing plans to the audio thread and freeing the old ones only once it has moved on.
@Suite("PlanExchange")
struct PlanExchangeTests {
    /// Holds a plan without keeping it alive, to observe when the exchange lets go of it.
    final class WeakPlan {
        weak var plan: RenderPlan?
        init(_ plan: RenderPlan) { self.plan = plan }
    }

    /// Compiles plans of one small graph, numbering generations from 1.
    final class Plans {
        let graph: Graph
        let instances = NodeInstances(sampleRate: 48_000, maximumFrames: 64)
        private var generation: UInt64 = 0

        init() throws {
            graph = try loadGraph(graphJSON(apps: #"{ "id": "osc", "plugin": "builtin:oscillator" }"#))
        }

        /// Publishes the next plan and returns only a weak hold on it, so the exchange owns it alone.
        func publishNext(to exchange: PlanExchange) throws -> WeakPlan {
            generation += 1
            let plan = PlanCompiler.compile(graph, slots: try instances.slots(for: graph), sampleRate: 48_000,
                                            maximumFrames: 64, generation: generation)
            exchange.publish(plan)
            return WeakPlan(plan)
        }
    }

    /// One audio-thread cycle: picks up the current plan and acknowledges its generation.
    static func cycle(_ exchange: PlanExchange) -> Bool {
        exchange.withCurrentPlan(RenderContext(frames: 64, sampleTime: 0)) { plan in
            Renderer.render(plan, RenderContext(frames: 64, sampleTime: 0))
        }
    }

    @Test("a replaced plan is freed only after the audio thread acknowledges its successor")
    func retiresUntilAcknowledged() throws {
        let exchange = PlanExchange()
        let plans = try Plans()
        #expect(!Self.cycle(exchange), "nothing renders before a plan is published")

        let first = try plans.publishNext(to: exchange)
        #expect(Self.cycle(exchange))
        #expect(exchange.acknowledgedGeneration == 1)
        #expect(exchange.collect() == 0, "nothing is retired yet")
        #expect(first.plan != nil, "the current plan stays alive")

        let second = try plans.publishNext(to: exchange)
        #expect(exchange.currentPlan === second.plan)
        #expect(exchange.collect() == 1, "the first plan waits: the audio thread may still be in it")
        #expect(first.plan != nil)

        #expect(Self.cycle(exchange))
        #expect(exchange.acknowledgedGeneration == 2)
        #expect(exchange.collect() == 0)
        #expect(first.plan == nil, "freed once the acknowledgement reached its successor")
        #expect(second.plan != nil)
    }

    @Test("several plans published between cycles wait for the newest acknowledgement")
    func severalRetired() throws {
        let exchange = PlanExchange()
        let plans = try Plans()
        let first = try plans.publishNext(to: exchange)
        #expect(Self.cycle(exchange))
        let second = try plans.publishNext(to: exchange)
        let third = try plans.publishNext(to: exchange)
        #expect(exchange.collect() == 2)
        #expect(first.plan != nil && second.plan != nil)
        #expect(Self.cycle(exchange))
        #expect(exchange.acknowledgedGeneration == 3)
        #expect(exchange.collect() == 0)
        #expect(first.plan == nil && second.plan == nil)
        #expect(third.plan != nil)
    }

    @Test("collect(audioStopped: true) frees every retired plan without an acknowledgement")
    func collectWhenStopped() throws {
        let exchange = PlanExchange()
        let plans = try Plans()
        let first = try plans.publishNext(to: exchange)
        let second = try plans.publishNext(to: exchange)
        #expect(exchange.acknowledgedGeneration == 0)
        #expect(exchange.collect() == 1)
        #expect(first.plan != nil)
        #expect(exchange.collect(audioStopped: true) == 0)
        #expect(first.plan == nil)
        #expect(second.plan != nil, "the current plan is never collected")
    }

    @Test("releasing the exchange frees the current plan")
    func deinitReleasesCurrent() throws {
        let plans = try Plans()
        var exchange: PlanExchange? = PlanExchange()
        let current = try plans.publishNext(to: try #require(exchange))
        #expect(current.plan != nil)
        exchange = nil
        #expect(current.plan == nil)
    }
}
