/// What went wrong in a graph file, as a stable string that `iaa validate --json` and the control
/// protocol report.
///
/// The set is closed so that tools and tests can match on it; the raw values never change once
/// published.
public enum GraphErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The file could not be read.
    case io
    /// The text is not well-formed JSON (or YAML, for `.yaml` files).
    case syntax
    /// An object names the same key twice.
    case duplicateKey
    /// A key the format does not define.
    case unknownKey
    /// A required key is absent.
    case missingKey
    /// A value has the wrong JSON type (a string where a number belongs).
    case wrongType
    /// `format` names a version this engine does not read.
    case unsupportedFormat
    /// An app id that is not `[A-Za-z0-9_-]+`.
    case invalidId
    /// Two apps share an id.
    case duplicateId
    /// `plugin` names no registered node type.
    case unknownPlugin
    /// A plugin library that is not on the paths searched.
    case pluginNotFound
    /// A library without the plugin entry symbol (`iaa_plugin_entry`).
    case notAPlugin
    /// A plugin built against another version of the plugin ABI.
    case abiMismatch
    /// A plugin descriptor with a missing or invalid field.
    case invalidDescriptor
    /// `params` names something that is neither a parameter nor a configuration value.
    case unknownParameter
    /// A parameter or configuration value outside its range.
    case parameterOutOfRange
    /// A value of the right type that still means nothing (an unknown role, a non-integer count).
    case invalidValue
    /// A connection names an app the graph does not have.
    case unknownApp
    /// A connection names a port the app does not have.
    case unknownPort
    /// A connection uses an input as a source or an output as a destination.
    case wrongDirection
    /// A connection gain that is negative, not finite or unreadable.
    case invalidGain
    /// Connections that feed an app back into itself.
    case cycle
    /// A JACK client or port name longer than JACK allows.
    case nameTooLong
    /// A JACK connection endpoint that is neither an app port nor an outside port.
    case invalidEndpoint
    /// The same connection twice.
    case duplicateConnection
    /// A port glob that matches no port.
    case emptyGlob
    /// An app lacks a grant or background mode an Inter-App Audio connection needs, or a grant its
    /// plugin requests ('ent?').
    case missingEntitlement
    /// Inter-App Audio: a session that cannot take part (no mixWithOthers, not active) ('!cat').
    case incompatibleCategory
    /// Inter-App Audio: only node apps connect to a host.
    case notANode
    /// A node app without a component (type, subtype, manufacturer).
    case missingComponent
    /// A component type whose ports the node does not have (an effect without an input).
    case componentMismatch
    /// A session option that the app's category does not accept (AVAudioSession's `badParam`).
    case badOption
    /// A warning: a session mode the category does not support; the session behaves as `default`.
    case unsupportedMode
    /// A warning: `entitlements`, `requires`, `backgroundModes` or `state` on an app without a
    /// `session`, which the policy does not manage.
    case ignoredSessionField
    /// A second app that starts in the foreground; at most one app may.
    case duplicateForeground
    /// A policy setting or timeline time outside its range (a duck level above 0 dB, a negative time).
    case outOfRange
    /// A timeline entry whose `do` names no action.
    case unknownAction
    /// A timeline entry about an app that has no `session`.
    case unmanagedApp
    /// A grants file that someone other than its owner could change (StrictModes), or that is
    /// owned by another user.
    case insecureGrants
    /// An app with both `plugin` and `program`, or a program app in an Inter-App Audio role.
    case programConflict
    /// A connection naming a program app's `play_K` or `capture_K`, which only the engine connects.
    case programPort
}
