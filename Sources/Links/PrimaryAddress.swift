/// Where a satellite finds its primary's control socket (`iaa run --join`): a Unix socket path
/// on this machine, or one on another machine reached through OpenSSH,
/// `ssh://[USER@]HOST[:PORT]/PATH`, which the engine forwards to a socket of its own with
/// `ssh -N -L` (authenticated and encrypted by SSH; nothing of ours on the network).
public enum PrimaryAddress: Equatable, Sendable {
    case socket(String)
    case ssh(destination: String, port: Int?, remotePath: String)

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ text: String) throws(Invalid) {
        guard text.hasPrefix("ssh://") else {
            guard text.hasPrefix("/") else {
                throw Invalid(description: "\"\(text)\" is neither a socket path (absolute) nor ssh://[USER@]HOST[:PORT]/PATH")
            }
            self = .socket(text)
            return
        }
        let rest = text.dropFirst("ssh://".count)
        guard let slash = rest.firstIndex(of: "/"), slash != rest.startIndex else {
            throw Invalid(description: "\"\(text)\" has no socket path: ssh://[USER@]HOST[:PORT]/PATH, the primary's control socket on its machine")
        }
        var destination = rest[..<slash]
        var port: Int?
        if let colon = destination.lastIndex(of: ":"), !destination.hasSuffix("]") {
            guard let number = Int(destination[destination.index(after: colon)...]), (1...65535).contains(number) else {
                throw Invalid(description: "\"\(text)\": the SSH port after ':' must be a number from 1 to 65535")
            }
            port = number
            destination = destination[..<colon]
        }
        guard !destination.isEmpty, !destination.hasPrefix("-"), !destination.contains(where: { $0 == " " || $0 == "/" }) else {
            throw Invalid(description: "\"\(text)\": \"\(destination)\" is not an SSH destination ([USER@]HOST)")
        }
        self = .ssh(destination: String(destination), port: port, remotePath: String(rest[slash...]))
    }

    /// `ssh`'s arguments that forward `localSocket` to the primary's socket and do nothing else;
    /// nil for a local socket. BatchMode: a key, never a password prompt; the forward must work
    /// or ssh exits (and says why); two missed keep-alives, 2 s apart, end a dead link.
    public func sshArguments(localSocket: String, config: String?) -> [String]? {
        guard case .ssh(let destination, let port, let remotePath) = self else { return nil }
        var arguments = ["-N", "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes",
                         "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=2"]
        if let config { arguments += ["-F", config] }
        if let port { arguments += ["-p", String(port)] }
        return arguments + ["-L", "\(localSocket):\(remotePath)", "--", destination]
    }

    /// As written.
    public var description: String {
        switch self {
        case .socket(let path): return path
        case .ssh(let destination, let port, let remotePath): return "ssh://\(destination)\(port.map { ":\($0)" } ?? "")\(remotePath)"
        }
    }
}
