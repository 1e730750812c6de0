/// A parameter that can change while the node runs; the engine smooths it unless it is discrete.
public struct ParameterSpec: Sendable, Hashable {
    public enum Unit: String, Sendable, Hashable {
        case generic, hertz, linearGain, decibels, seconds, milliseconds, percent, boolean
    }

    /// The symbol used in graph files and commands (`frequency`).
    public let name: String
    public let displayName: String
    public let range: ClosedRange<Float>
    public let defaultValue: Float
    public let unit: Unit
    /// A discrete parameter jumps to its new value at the next cycle instead of ramping.
    public let isDiscrete: Bool

    public init(name: String, displayName: String? = nil, range: ClosedRange<Float>,
                defaultValue: Float, unit: Unit = .generic, isDiscrete: Bool = false) {
        self.name = name
        self.displayName = displayName ?? name
        self.range = range
        self.defaultValue = defaultValue
        self.unit = unit
        self.isDiscrete = isDiscrete
    }
}

/// A setup value fixed when the node is created (a mixer's number of inputs, a noise seed).
/// Changing it creates a new node instance.
public struct ConfigurationSpec: Sendable, Hashable {
    public let name: String
    public let displayName: String
    public let range: ClosedRange<Int>
    public let defaultValue: Int

    public init(name: String, displayName: String? = nil, range: ClosedRange<Int>, defaultValue: Int) {
        self.name = name
        self.displayName = displayName ?? name
        self.range = range
        self.defaultValue = defaultValue
    }
}

/// The configuration values a node instance was created with, one per ``ConfigurationSpec``.
public struct NodeConfiguration: Sendable, Hashable {
    public let values: [String: Int]
    /// State the node restores when it is created (an LV2 plugin's saved state, as Turtle), from
    /// the app's `pluginState`. Part of the configuration so that a changed state makes a new node.
    public let state: String?

    public init(_ values: [String: Int] = [:], state: String? = nil) {
        self.values = values
        self.state = state
    }

    /// The value of `name`, or `fallback` when it was not given.
    public func value(_ name: String, default fallback: Int) -> Int {
        values[name] ?? fallback
    }

    /// `spec`'s value (its default when not given), clamped into its range in case the validator
    /// was bypassed: a node's layout and the node itself read it from here, so they agree.
    public func value(of spec: ConfigurationSpec) -> Int {
        min(max(value(spec.name, default: spec.defaultValue), spec.range.lowerBound), spec.range.upperBound)
    }
}
