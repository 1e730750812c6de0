import RenderCore
import NodeKit

/// Creates the node slots for a graph's apps and keeps them, so that a changed graph reuses the
/// running node of every app whose type and configuration did not change (its state survives).
/// Control side only.
public final class NodeInstances {
    public let sampleRate: Double
    public let maximumFrames: Int
    /// Parameter ramp time for every slot created from now on.
    public let rampSeconds: Double
    /// Ramp time of the session policy's per-app gain (the graph's `policy.rampTime`).
    public let gainRampSeconds: Double
    /// Each app's slot, the build of the code it runs (nil for built-in types) and where its
    /// node was asked to run (a changed choice gets a new node): one record, so that reusing
    /// an app's node is one lookup.
    private var held: [String: Held] = [:]

    private struct Held {
        let slot: NodeSlot
        let code: NodeCode?
        let isolation: IsolationChoice?
    }
    /// Makes an app's node. The engine installs one that runs some apps in a child process
    /// (docs/isolation.md); by default the type makes it, in this process.
    public var nodeFactory: (App) throws -> any AudioNode = { app in try app.type.makeNode(app.configuration) }

    public init(sampleRate: Double, maximumFrames: Int, rampSeconds: Double = 0.010, gainRampSeconds: Double = 0.010) {
        self.sampleRate = sampleRate
        self.maximumFrames = maximumFrames
        self.rampSeconds = rampSeconds
        self.gainRampSeconds = gainRampSeconds
    }

    /// The slots for `graph`, one per app in app order. Reused slots get the graph's parameter
    /// values as new targets (they ramp), unless `keepingParameters` (a new plan for the graph
    /// already playing: what `set` changed since stays); new slots start at them. A node whose
    /// creation throws leaves the pool as it was.
    public func slots(for graph: Graph, keepingParameters: Bool = false) throws -> [NodeSlot] {
        var result: [NodeSlot] = []
        result.reserveCapacity(graph.apps.count)
        var reused = Array(repeating: false, count: graph.apps.count)
        // Apps are read in place: iterating `graph.apps` copied each (layout, strings).
        for index in graph.apps.indices {
            if let existing = held[graph.apps[index].id], existing.slot.typeID == graph.apps[index].type.id,
               existing.slot.configuration == graph.apps[index].configuration,
               existing.code == graph.apps[index].type.code, existing.isolation == graph.apps[index].isolation {
                result.append(existing.slot)
                reused[index] = true
                continue
            }
            let node = try nodeFactory(graph.apps[index])
            node.prepare(sampleRate: sampleRate, maximumFrames: maximumFrames)
            result.append(makeSlot(node, app: graph.apps[index]))
        }
        // Only now, with every node created, change what the pool holds and the reused targets.
        var next: [String: Held] = [:]
        next.reserveCapacity(graph.apps.count)
        for index in graph.apps.indices {
            if reused[index] && !keepingParameters {
                for (parameter, value) in graph.apps[index].parameters.enumerated() { result[index].setParameter(parameter, to: value) }
            }
            next[graph.apps[index].id] = Held(slot: result[index], code: graph.apps[index].type.code,
                                              isolation: graph.apps[index].isolation)
        }
        held = next
        return result
    }

    /// The apps of `graph` whose running node keeps its type and configuration but whose code
    /// is another build (a rebuilt plugin library): `slots(for:)` replaces their nodes.
    public func appsWithNewCode(in graph: Graph) -> [String] {
        graph.apps.filter { app in
            guard let existing = held[app.id] else { return false }
            return existing.slot.typeID == app.type.id && existing.slot.configuration == app.configuration
                && existing.code != app.type.code
        }.map(\.id)
    }

    private func makeSlot<Node: AudioNode>(_ node: Node, app: App) -> NodeSlot {
        if let phased = node as? any PhasedNode { return makePhasedSlot(phased, app: app) }
        return TypedSlot(node: node, appID: app.id, type: app.type, configuration: app.configuration,
                         initialValues: app.parameters, sampleRate: sampleRate, rampSeconds: rampSeconds,
                         gainRampSeconds: gainRampSeconds)
    }

    private func makePhasedSlot<Node: PhasedNode>(_ node: Node, app: App) -> NodeSlot {
        PhasedSlot(node: node, appID: app.id, type: app.type, configuration: app.configuration,
                   initialValues: app.parameters, sampleRate: sampleRate, rampSeconds: rampSeconds,
                   gainRampSeconds: gainRampSeconds)
    }
}
