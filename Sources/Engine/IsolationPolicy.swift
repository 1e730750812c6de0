import AudioGraph
import Foundation
import Isolation
import NodeKit
import PluginHost

/// Decides where each app's node runs and makes the isolated ones (docs/isolation.md).
///
/// The app's `isolation`, else the graph's `isolation.default`, else `iaa run --isolation`;
/// `auto` keeps trusted code in process: built-in types, LV2 and LADSPA plugins (loaded only from
/// their standard search paths), and native libraries under the system's library folders or
/// `IAA_TRUSTED_PATH`. Control side.
public struct IsolationPolicy: Sendable {
    /// Folders only root writes; a native plugin library under one of them is trusted.
    public static let systemFolders = LibraryTrust.systemFolders

    /// `--isolation`: what apps get when the graph says nothing.
    public var engineDefault: IsolationChoice
    /// Folders whose native plugin libraries run in process under `auto`.
    public var trustedFolders: [String]
    /// Timeouts, restarts and the child's binary; the graph's `isolation` block sets the crash limit.
    public var settings: IsolationSettings

    public init(engineDefault: IsolationChoice = .auto, trustedFolders: [String], settings: IsolationSettings) {
        self.engineDefault = engineDefault
        self.trustedFolders = trustedFolders
        self.settings = settings
    }

    /// The system folders and `IAA_TRUSTED_PATH`, the child being this `iaa` binary.
    public static func fromEnvironment(engineDefault: IsolationChoice = .auto, share: Double = 0.5) -> IsolationPolicy {
        IsolationPolicy(engineDefault: engineDefault, trustedFolders: LibraryTrust.fromEnvironment().folders,
                               settings: IsolationSettings(executable: childExecutable(), share: share))
    }

    /// The `iaa` binary: this process's own when it is `iaa`, else `$IAA_BIN` (tests that run
    /// the engine inside a test runner), else an `iaa` next to this executable (a test runner in
    /// the build folder), else this executable (the child then fails to start, and the app's
    /// status or the describe error says so).
    static func childExecutable() -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        if own.hasSuffix("/iaa") { return own }
        if let chosen = ProcessInfo.processInfo.environment["IAA_BIN"] { return chosen }
        let sibling = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("iaa").path
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : own
    }

    /// Where `app`'s node runs.
    public func choice(for app: App) -> IsolationChoice {
        let chosen = app.isolation ?? engineDefault
        guard chosen == .auto else { return chosen }
        return trusts(app.type) ? .none : .process
    }

    /// Whether `auto` keeps nodes of `type` in process.
    public func trusts(_ type: NodeType) -> Bool {
        guard let file = type.code?.library ?? type.binary else { return true }  // built into the engine
        return LibraryTrust(folders: trustedFolders).trusts(library: file)
    }

    /// The factory `NodeInstances` calls: an ``IsolatedNode`` for isolated apps, the type's own
    /// node otherwise. `observer` hears the children's events.
    public func nodeFactory(graph: IsolationConfiguration, observer: @escaping @Sendable (IsolationEvent) -> Void)
        -> (App) throws -> any AudioNode {
        var settings = settings
        settings.maxCrashes = graph.maxCrashes
        settings.crashWindowSeconds = graph.crashWindowSeconds
        return { [self, settings] app in
            guard choice(for: app) == .process else { return try app.type.makeNode(app.configuration) }
            let layout = app.type.layout(app.configuration)
            return IsolatedNode(app: app.id, plugin: Self.childPlugin(app.type), graphDirectory: "/",
                                configuration: app.configuration, inputs: layout.inputs.count, outputs: layout.outputs.count,
                                parameters: app.type.parameters.count, takesMIDI: !layout.midiInputs.isEmpty,
                                settings: settings, observer: observer)
        }
    }

    /// The `plugin` value the child resolves: a native library by its absolute path (the graph's
    /// folder means nothing to the child), with the graph's `#id` kept; other ids as they are.
    static func childPlugin(_ type: NodeType) -> String {
        guard let code = type.code else { return type.id }
        let selector = PluginResolver.split(type.id).selector
        return code.library + (selector.map { "#" + $0 } ?? "")
    }
}
