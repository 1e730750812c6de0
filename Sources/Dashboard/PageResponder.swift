import NIOCore
import NIOHTTP1
import Synchronization

/// Answers the plain HTTP requests of one connection: the page and its two assets to a request
/// that passes ``DashboardAccess``, a refusal with its reason to any other.
struct PageResponder {
    let access: DashboardAccess
    /// Set when the peer runs as another user (``DashboardServer/refusal(of:allowRemote:)``).
    let peerRefusal: String?
    let declinedUpgrade: DeclinedUpgrade

    private typealias Outbound = NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    func serve(_ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async throws {
        try await channel.executeThenClose { inbound, outbound in
            for try await part in inbound {
                let head: HTTPRequestHead
                switch part {
                case .head(let request): head = request
                case .body: continue
                case .end:
                    guard let declined = declinedUpgrade.take() else { continue }
                    head = declined
                }
                let keepOpen = try await respond(to: head, outbound)
                if !keepOpen { return }
            }
        }
    }

    /// Writes the response to one request; false when the connection is to close after it.
    private func respond(to head: HTTPRequestHead, _ outbound: Outbound) async throws -> Bool {
        if let peerRefusal {
            try await write(.forbidden, peerRefusal, to: outbound, close: true)
            return false
        }
        guard head.method == .GET || head.method == .HEAD else {
            try await write(.methodNotAllowed, "the dashboard answers GET only; its controls go through its WebSocket",
                            to: outbound, close: true)
            return false
        }
        let upgrading = head.headers.first(name: "Upgrade")?.lowercased() == "websocket"
        if case .refused(let status, let reason) = access.decide(request: head, webSocket: upgrading) {
            try await write(HTTPResponseStatus(statusCode: status), reason, to: outbound, close: true)
            return false
        }
        let path = DashboardAccess.path(of: head.uri)
        guard let asset = DashboardAssets.asset(at: path) else {
            let reason = path == "/ws" ? "/ws is the dashboard's WebSocket; open it as one (from the page)"
                : "nothing at \(path); the dashboard is at /"
            try await write(path == "/ws" ? .badRequest : .notFound, reason, to: outbound, close: false)
            return true
        }
        var headers = Self.securityHeaders
        headers.add(name: "Content-Type", value: asset.contentType)
        headers.add(name: "Content-Length", value: String(asset.body.utf8.count))
        if path == "/" { headers.add(name: "Set-Cookie", value: access.cookie) }
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)))
        if head.method == .GET { try await outbound.write(.body(.byteBuffer(ByteBuffer(string: asset.body)))) }
        try await outbound.write(.end(nil))
        return true
    }

    private func write(_ status: HTTPResponseStatus, _ reason: String, to outbound: Outbound, close: Bool) async throws {
        let body = ByteBuffer(string: "iaa web: \(reason)\n")
        var headers = Self.securityHeaders
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if close { headers.add(name: "Connection", value: "close") }
        try await outbound.write(contentsOf: [.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)),
                                              .body(.byteBuffer(body)), .end(nil)])
    }

    /// Every response: no caching (the address holds the token), no framing by other sites, no
    /// script or connection but the dashboard's own, and no Referer carrying the token away.
    private static let securityHeaders = HTTPHeaders([
        ("Cache-Control", "no-store"),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
    ])
}

/// The head of a WebSocket request the server declined to upgrade: SwiftNIO hands the page's
/// handler only the rest of such a request, so it is answered from this copy.
final class DeclinedUpgrade: Sendable {
    private let head = Mutex<HTTPRequestHead?>(nil)

    func keep(_ request: HTTPRequestHead) {
        head.withLock { $0 = request }
    }

    func take() -> HTTPRequestHead? {
        head.withLock { head in
            defer { head = nil }
            return head
        }
    }
}
