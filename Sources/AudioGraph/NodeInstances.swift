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
    private var slotsByApp: [String: NodeSlot] = [:]
    /// The build of the code each app's slot runs (nil for built-in types).
    private var codeByApp: [String: NodeCode] = [:]
    /// Where each app's node was asked to run: a changed choice gets a new node.
    private var isolationByApp: [String: IsolationChoice] = [:]
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
    /// values as new targets (they ramp); new slots start at them. A node whose creation throws
    /// leaves the pool as it was.
    public func slots(for graph: Graph) throws -> [NodeSlot] {
        var result: [NodeSlot] = []
        var created: [String: NodeSlot] = [:]
        for app in graph.apps {
            if let existing = slotsByApp[app.id], existing.typeID == app.type.id,
               existing.configuration == app.configuration, codeByApp[app.id] == app.type.code,
               isolationByApp[app.id] == app.isolation {
                result.append(existing)
                continue
            }
            let node = try nodeFactory(app)
            node.prepare(sampleRate: sampleRate, maximumFrames: maximumFrames)
            let slot = makeSlot(node, app: app)
            created[app.id] = slot
            result.append(slot)
        }
        // Only now, with every node created, change what the pool holds and the reused targets.
        for (app, slot) in zip(graph.apps, result) where created[app.id] == nil {
            for (index, value) in app.parameters.enumerated() { slot.setParameter(index, to: value) }
        }
        slotsByApp = Dictionary(uniqueKeysWithValues: zip(graph.apps.map(\.id), result))
        codeByApp = Dictionary(uniqueKeysWithValues: graph.apps.compactMap { app in app.type.code.map { (app.id, $0) } })
        isolationByApp = Dictionary(uniqueKeysWithValues: graph.apps.compactMap { app in app.isolation.map { (app.id, $0) } })
        return result
    }

    /// The apps of `graph` whose running node keeps its type and configuration but whose code
    /// is another build (a rebuilt plugin library): `slots(for:)` replaces their nodes.
    public func appsWithNewCode(in graph: Graph) -> [String] {
        graph.apps.filter { app in
            guard let existing = slotsByApp[app.id] else { return false }
            return existing.typeID == app.type.id && existing.configuration == app.configuration
                && codeByApp[app.id] != app.type.code
        }.map(\.id)
    }

    private func makeSlot<Node: AudioNode>(_ node: Node, app: App) -> NodeSlot {
        TypedSlot(node: node, appID: app.id, type: app.type, configuration: app.configuration,
                  initialValues: app.parameters, sampleRate: sampleRate, rampSeconds: rampSeconds,
                  gainRampSeconds: gainRampSeconds)
    }
}
