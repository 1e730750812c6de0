/// Who may use the dashboard, decided for each HTTP request before anything is served: the
/// request must name this server in `Host` (a page on another site that a DNS name was pointed
/// at this address is refused), carry the token printed at start, in the URL (`?token=`) or in
/// the cookie the page was served with, and, for the WebSocket, come from this server's own page
/// (`Origin`). Pure: the server hands it the request's parts.
public struct DashboardAccess: Sendable {
    /// What a request is answered with.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// `status` is the HTTP status; `reason` the body, for the person who sees it.
        case refused(status: Int, reason: String)
    }

    public let token: String
    public let port: Int
    /// The `Host` header values this server answers to (each with the port).
    public let hosts: Set<String>

    /// `listenHost` is the address the server is bound to; loopback names are always accepted
    /// beside it.
    public init(token: String, listenHost: String, port: Int) {
        self.token = token
        self.port = port
        let loopback = ["127.0.0.1", "localhost", "[::1]"]
        let listen = listenHost.contains(":") && !listenHost.hasPrefix("[") ? "[\(listenHost)]" : listenHost
        hosts = Set((loopback + [listen]).map { "\($0):\(port)" })
    }

    /// The cookie the page is served with; named by port, since browsers share cookies between
    /// the ports of one host and two engines' dashboards may run side by side.
    public var cookieName: String { "iaa-dashboard-\(port)" }

    /// `Set-Cookie` for a page served to a request that had the right token.
    public var cookie: String { "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// Decides a request for `target` (path and query) with these header values; `webSocket` for
    /// an upgrade request.
    public func decide(target: String, host: String?, origin: String?, cookies: [String], webSocket: Bool) -> Decision {
        guard let host, hosts.contains(host.lowercased()) else {
            return .refused(status: 403, reason: "this dashboard answers only to \(hosts.sorted().joined(separator: ", ")) "
                + "(Host was \(host.map { "\"\($0)\"" } ?? "missing")); open the address `iaa web` printed")
        }
        guard presentsToken(target: target, cookies: cookies) else {
            return .refused(status: 401, reason: "this dashboard needs the token `iaa web` printed when it started: "
                + "open the address it printed, http://\(host)/?token=…")
        }
        if webSocket {
            let expected = "http://\(host.lowercased())"
            guard let origin, origin.lowercased() == expected else {
                return .refused(status: 403, reason: "WebSocket from origin \(origin.map { "\"\($0)\"" } ?? "(none)") refused: "
                    + "only this dashboard's own page (\(expected)) may open it")
            }
        }
        return .allowed
    }

    /// Whether the query's `token` or the cookie holds the token, compared in constant time.
    func presentsToken(target: String, cookies: [String]) -> Bool {
        let offered = [Self.queryValue("token", in: target)] + cookies.map { Self.value(cookieName, among: $0.split(separator: ";")) }
        return offered.contains { $0.map { Self.equalInConstantTime($0, token) } ?? false }
    }

    /// The path of a request target, without its query.
    public static func path(of target: String) -> String {
        String(target.prefix { $0 != "?" && $0 != "#" })
    }

    static func queryValue(_ name: String, in target: String) -> String? {
        guard let start = target.firstIndex(of: "?") else { return nil }
        return value(name, among: target[target.index(after: start)...].prefix { $0 != "#" }.split(separator: "&"))
    }

    /// The value of `name` among pairs written `name=value` (a query's, a `Cookie` header's),
    /// spaces before a pair ignored.
    static func value(_ name: String, among pairs: [Substring]) -> String? {
        for pair in pairs {
            let parts = pair.drop { $0 == " " }.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name { return String(parts[1]) }
        }
        return nil
    }

    /// Compares every byte whatever the first difference, so the time taken tells nothing of
    /// how much of a guess was right.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// A new token: 128 bits from the system's secure generator (getrandom), as hex.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word = String(UInt32.random(in: .min ... .max, using: &generator), radix: 16)
            return String(repeating: "0", count: 8 - word.count) + word
        }.joined()
    }
}
