#if canImport(Glibc)
import Glibc
#endif

/// Why the control socket could not be set up, reached or used.
public struct ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The socket's directory is not private to this user (owner, mode, or not a directory).
        case insecureDirectory
        /// Another engine holds the lock for this socket.
        case engineRunning
        /// Nothing listens on the socket (the CLI maps this to exit code 2).
        case notRunning
        /// The path does not fit `sockaddr_un` (107 bytes on Linux).
        case pathTooLong
        /// The engine closed the connection or sent something that is not a reply.
        case protocolViolation
        /// No reply within the client's timeout.
        case timeout
        /// A system call failed for another reason.
        case system
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// A failed system call, naming it, its subject and errno's text.
    static func system(_ call: String, _ subject: String, errno code: Int32 = errno) -> ControlSocketError {
        ControlSocketError(.system, "\(call) \(subject): \(String(cString: strerror(code)))")
    }
}
