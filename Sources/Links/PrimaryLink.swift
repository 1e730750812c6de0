import ControlSocket
import Foundation
import Synchronization

/// What the control link to a primary engine reports to the satellite engine.
public enum PrimaryEvent: Sendable {
    /// Every mirrored app is attached on the primary: its session there, by app (an app the
    /// primary gives no session is not in it).
    case joined([String: SessionStatus])
    /// The primary decided this gain for a mirrored app (ducked, interrupted, muted…).
    case decision(app: String, gain: Float)
    /// A session event the primary sent one of the mirrored apps.
    case event(SessionEventMessage)
    /// The link is down (or could not be made): why, in words. It is tried again.
    case lost(String)
}

/// A satellite engine's control link to its primary (docs/links.md, "One policy across
/// machines"): one connection per mirrored app, attached to that app on the primary
/// (`program.attach`), which carries the primary's decisions and session events for it, and one
/// connection for the requests the satellite forwards. The primary's control socket is reached
/// as a Unix socket, which OpenSSH carries between machines (`ssh -N -L`): authenticated and
/// encrypted by SSH, nothing of ours. A thread of its own joins, waits for the link to break,
/// reports it, and joins again a second later, until stopped.
public final class PrimaryLink: Sendable {
    public let path: String
    public let apps: [String]
    private let report: @Sendable (PrimaryEvent) -> Void
    private let requests = Mutex<Connection?>(nil)
    private let streams = Mutex<[Connection]>([])
    private let stopping = Atomic<Bool>(false)
    private let broken = Atomic<Bool>(false)
    /// How long the satellite waits for the primary's reply to a forwarded request.
    public static let replyTimeout = Duration.seconds(1)
    public static let retryPause = 1.0

    /// One connection to the primary. A request connection is used under the link's lock; an
    /// app's is read by its follower thread alone; any thread may shut either down.
    private final class Connection: @unchecked Sendable {
        let client: ControlClient
        init(_ client: ControlClient) { self.client = client }
    }

    public init(path: String, apps: [String], report: @escaping @Sendable (PrimaryEvent) -> Void) {
        self.path = path
        self.apps = apps
        self.report = report
        let thread = Thread { [self] in run() }
        thread.name = "iaa-primary"
        thread.start()
    }

    /// Ends the link: its connections close (the primary ends the mirrored apps' sessions).
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        breakLink()
    }

    /// Sends a request to the primary and waits for its reply: nil when the link is down or the
    /// primary did not answer (the link is then broken, and reported lost).
    public func forward(_ method: String, _ params: ControlJSON) -> Result<ControlJSON, ControlError>? {
        typealias Answer = Result<Result<ControlJSON, ControlError>, ControlSocketError>
        let answer = requests.withLock { connection -> Answer? in
            guard let connection else { return nil }
            return Answer { () throws(ControlSocketError) in try connection.client.call(method, params: params) }
        }
        switch answer {
        case nil: return nil
        case .failure?:
            breakLink()
            return nil
        case .success(let reply)?: return reply
        }
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func breakLink() {
        broken.store(true, ordering: .sequentiallyConsistent)
        requests.withLock { $0?.client.shutdown() }
        streams.withLock { for connection in $0 { connection.client.shutdown() } }
    }

    private func run() {
        while !isStopping {
            broken.store(false, ordering: .sequentiallyConsistent)
            let reason = joinAndFollow()
            requests.withLock { $0 = nil }
            streams.withLock { $0 = [] }
            if isStopping { break }
            report(.lost(reason))
            let deadline = ContinuousClock.now + .seconds(Self.retryPause)
            while !isStopping && ContinuousClock.now < deadline { usleep(20_000) }
        }
    }

    /// Joins, then follows every app's stream until one ends; returns why the link ended.
    private func joinAndFollow() -> String {
        var attached: [(app: String, connection: Connection)] = []
        var sessions: [String: SessionStatus] = [:]
        do {
            let control = Connection(try ControlClient(path: path, timeout: Self.replyTimeout))
            for app in apps {
                let connection = Connection(try ControlClient(path: path, timeout: .seconds(2)))
                switch try connection.client.begin(ControlMethod.attach.rawValue, params: ControlCall.attach(app: app).params) {
                case .success(let initial): sessions[app] = ProgramAttachReply(json: initial)?.session
                case .failure(let error):
                    return "the primary refused to let this engine speak for app \"\(app)\": \(error.message)"
                }
                attached.append((app, connection))
            }
            requests.withLock { $0 = control }
        } catch {
            return "the primary's control socket: \(error)"
        }
        streams.withLock { $0 = attached.map(\.connection) }
        if broken.load(ordering: .sequentiallyConsistent) || isStopping { return "stopped" }
        report(.joined(sessions))
        let ended = Mutex<String?>(nil)
        let group = DispatchGroup()
        for (app, connection) in attached {
            group.enter()
            let follower = Thread { [self] in
                defer { group.leave() }
                while let line = try? connection.client.readLine() {
                    switch (try? ControlJSONParser.parse(line)).flatMap(ProgramStreamLine.init(json:)) {
                    case .decision(let decision, _)?: report(.decision(app: app, gain: Float(decision.gain)))
                    case .event(let event, _)?: report(.event(event))
                    case nil: continue
                    }
                }
                ended.withLock { $0 = $0 ?? "the primary closed the connection of app \"\(app)\"" }
                breakLink()
            }
            follower.name = "iaa-primary"
            follower.start()
        }
        group.wait()
        return ended.withLock { $0 } ?? "the link broke"
    }
}
