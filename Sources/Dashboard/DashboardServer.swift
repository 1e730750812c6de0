#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// `iaa web`'s server: serves the dashboard's page and bridges each of its WebSockets to a
/// connection of its own on the engine's control socket, one control-protocol line per text
/// message each way (docs/dashboard.md). The engine sees one more control client; the page can
/// do exactly what `iaa` can, through the same requests and checks.
///
/// SwiftNIO parses HTTP and WebSocket framing; this type decides who is served
/// (``DashboardAccess``, ``PeerOwner``) and what.
public final class DashboardServer: Sendable {
    public struct Configuration: Sendable {
        /// The address to listen on: loopback unless the user names another.
        public var host: String
        /// 0 picks a free port.
        public var port: Int
        /// The engine's control socket.
        public var engineSocket: String
        /// Serve peers the kernel does not list on this machine (another host): the token is then
        /// all that protects the engine.
        public var allowRemote: Bool
        public var token: String

        public init(host: String, port: Int, engineSocket: String, allowRemote: Bool = false,
                    token: String = DashboardAccess.newToken()) {
            self.host = host
            self.port = port
            self.engineSocket = engineSocket
            self.allowRemote = allowRemote
            self.token = token
        }
    }

    private enum Connection {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case page(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, PageResponder)
    }

    public let configuration: Configuration
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Binds, calls `ready` with the page's address (token included), then serves until the
    /// listening socket closes.
    public func run(ready: @Sendable (String) -> Void) async throws {
        let configuration = configuration
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel, configuration: configuration)
                }
            }
        let port = listener.channel.localAddress?.port ?? configuration.port
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        ready("http://\(host):\(port)/?token=\(configuration.token)")
        try await withThrowingDiscardingTaskGroup { tasks in
            try await listener.executeThenClose { inbound in
                for try await negotiated in inbound {
                    tasks.addTask {
                        do {
                            switch try await negotiated.get() {
                            case .webSocket(let channel):
                                try await EngineBridge(socketPath: configuration.engineSocket).serve(channel)
                            case .page(let channel, let responder):
                                try await responder.serve(channel)
                            }
                        } catch {
                            // One connection's failure (a browser gone mid-reply) ends that connection only.
                        }
                    }
                }
            }
        }
    }

    /// The pipeline of one accepted connection: HTTP, upgraded to a WebSocket when the request
    /// asks for `/ws` and passes every check.
    private static func configure(_ channel: any Channel, configuration: Configuration)
        throws -> EventLoopFuture<Connection> {
        let port = channel.localAddress?.port ?? configuration.port
        let access = DashboardAccess(token: configuration.token, listenHost: configuration.host, port: port)
        let peerRefusal = refusal(of: channel, allowRemote: configuration.allowRemote)
        let declined = DeclinedUpgrade()
        let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
            maxFrameSize: 1 << 20,
            shouldUpgrade: { channel, head in
                let allowed = peerRefusal == nil && DashboardAccess.path(of: head.uri) == "/ws"
                    && access.decide(request: head, webSocket: true) == .allowed
                if !allowed { declined.keep(head) }
                return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256,
                                                    maxAccumulatedFrameSize: 1 << 20))
                    return .webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                }
            })
        let upgrade = NIOTypedHTTPServerUpgradeConfiguration<Connection>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    return .page(try NIOAsyncChannel(wrappingChannelSynchronously: channel),
                                 PageResponder(access: access, peerRefusal: peerRefusal, declinedUpgrade: declined))
                }
            })
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: .init(upgradeConfiguration: upgrade))
    }

    /// Why the peer of `channel` may not be served, or nil: it must run as this process's user
    /// (as on the control socket), unless it is on another machine and `allowRemote` says so.
    static func refusal(of channel: any Channel, allowRemote: Bool) -> String? {
        guard let remote = channel.remoteAddress.flatMap(endpoint), let local = channel.localAddress.flatMap(endpoint) else {
            return "the dashboard could not tell who connected"
        }
        let own = getuid()
        guard let uid = PeerOwner.uid(peer: remote, local: local) else {
            return allowRemote ? nil : "this dashboard serves only this machine's uid \(own) (started without --allow-remote); "
                + "from another machine, forward a port over SSH: ssh -L \(local.port):127.0.0.1:\(local.port) HOST"
        }
        return uid == own ? nil : "this dashboard serves only uid \(own), its own user; you are uid \(uid)"
    }

    private static func endpoint(_ address: SocketAddress) -> PeerOwner.Endpoint? {
        switch address {
        case .v4(let ip):
            var raw = ip.address.sin_addr
            return PeerOwner.Endpoint(address: withUnsafeBytes(of: &raw) { Array($0) }, port: address.port ?? 0)
        case .v6(let ip):
            var raw = ip.address.sin6_addr
            return PeerOwner.Endpoint(address: withUnsafeBytes(of: &raw) { Array($0) }, port: address.port ?? 0)
        case .unixDomainSocket:
            return nil
        }
    }
}

extension DashboardAccess {
    /// Decides an HTTP request by its head.
    func decide(request head: HTTPRequestHead, webSocket: Bool) -> Decision {
        decide(target: head.uri, host: head.headers.first(name: "Host"), origin: head.headers.first(name: "Origin"),
               cookies: head.headers[canonicalForm: "Cookie"].map(String.init), webSocket: webSocket)
    }
}
