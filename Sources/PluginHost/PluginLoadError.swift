import AudioGraph

/// Why a plugin library could not be turned into node types: the validator's code, a message
/// naming the library and what is wrong, and a hint with the fix.
public struct PluginLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `pluginNotFound`, `notAPlugin`, `abiMismatch`, `invalidDescriptor` or `unknownPlugin`.
    public let code: GraphErrorCode
    /// What went wrong, naming the library (and the descriptor and field when one is at fault).
    public let message: String
    /// How to fix it.
    public let hint: String?

    /// Creates an error; `message` should name the library.
    public init(_ code: GraphErrorCode, _ message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// `error[code]: message`, then the hint on its own line.
    public var description: String {
        "error[\(code.rawValue)]: \(message)" + (hint.map { "\n  hint: \($0)" } ?? "")
    }

    /// The same error in the terms `NodeRegistry.resolver` reports.
    public var resolutionError: PluginResolutionError {
        PluginResolutionError(code: code, message: message, hint: hint)
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
