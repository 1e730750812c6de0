import ControlSocket

/// The engine's JSON values (event logs, replies) are the control protocol's: one ordered JSON
/// type for both, so a log line and a socket reply are written the same way.
public typealias JSONValue = ControlJSON
