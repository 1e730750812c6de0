/// Why a plugin library could not be turned into node types: a stable code, a message naming
/// the library and what is wrong, and a hint with the fix.
public struct PluginLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable codes, each one of the graph validator's error codes of the same name (the
    /// engine reports them at the app's `plugin` field).
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A library that is not on the paths searched.
        case pluginNotFound
        /// A library without a plugin's entry point (or an LV2/LADSPA plugin that does not load).
        case notAPlugin
        /// A plugin built against another version of the plugin ABI.
        case abiMismatch
        /// A plugin descriptor with a missing or invalid field.
        case invalidDescriptor
        /// A library of several node types named without `#ID`, or an id it does not hold.
        case unknownPlugin
    }

    public let code: Code
    /// What went wrong, naming the library (and the descriptor and field when one is at fault).
    public let message: String
    /// How to fix it.
    public let hint: String?

    /// Creates an error; `message` should name the library.
    public init(_ code: Code, _ message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// `error[code]: message`, then the hint on its own line.
    public var description: String {
        "error[\(code.rawValue)]: \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }
}

/// A plugin's `create` returned no instance. Thrown by `NodeType.makeNode`, so the graph change
/// that needed the node fails and the running graph stays as it was.
public struct PluginCreateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The graph's `plugin` value.
    public let plugin: String
    /// The plugin's own reason, from its error buffer ("" when it wrote none).
    public let reason: String

    /// Creates the error for `plugin` with the reason it gave.
    public init(plugin: String, reason: String) {
        self.plugin = plugin
        self.reason = reason
    }

    /// `plugin "…" could not create an instance: <the plugin's message>`.
    public var description: String {
        "plugin \"\(plugin)\" could not create an instance: " + (reason.isEmpty ? "it gave no reason" : reason)
    }
}
