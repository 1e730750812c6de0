import ArgumentParser
import ControlSocket
import Dashboard
import Dispatch
import Foundation
import Synchronization

/// `iaa web`: a live dashboard of a running engine in the browser (docs/dashboard.md).
struct Web: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Serve a live dashboard of the engine in the browser.",
        discussion: """
            Prints the page's address, with a token it needs: open it in a browser on this machine. \
            The page shows the graph by signal flow, each app's level, session, state and CPU share, \
            and a timeline of events; its controls (parameters, session activation, interruptions, \
            connections) send the same requests as `iaa`. It is served to this user only, on \
            loopback by default; the engine keeps running whether or not a page is open. Stop it \
            with Ctrl-C.
            """)

    @OptionGroup var engine: EngineOptions

    @Option(help: ArgumentHelp("Where to listen: HOST:PORT (port 0 picks a free one).", valueName: "address"))
    var listen = "127.0.0.1:8737"

    @Flag(help: "Serve browsers on other machines too (the token alone then protects the engine; prefer `ssh -L`).")
    var allowRemote = false

    func validate() throws {
        _ = try address()
    }

    func run() throws {
        let (host, port) = try address()
        let socketPath = engine.socketPath
        if (try? ControlClient(path: socketPath, timeout: .seconds(2))) == nil {
            Output.warning("no engine answers on \(socketPath) now; the page connects when one starts (`iaa run GRAPH`)")
        }
        let server = DashboardServer(.init(host: host, port: port, engineSocket: socketPath, allowRemote: allowRemote))
        // SIGINT and SIGTERM are taken here, not left to their default action, so they stop the
        // server even when the parent started it with them blocked (a mask is inherited).
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        let outcome = Outcome()
        let finished = DispatchSemaphore(value: 0)
        Task {
            do {
                try await server.run { url in
                    Output.diagnostic("iaa web: the dashboard of \(socketPath); open in a browser (Ctrl-C stops it):")
                    Output.line(url)
                }
            } catch {
                outcome.error.withLock { $0 = "\(error)" }
            }
            finished.signal()
        }
        while finished.wait(timeout: .now()) == .timedOut {
            var wait = timespec(tv_sec: 0, tv_nsec: 100_000_000)
            let signal = sigtimedwait(&stopSignals, nil, &wait)
            if signal == SIGINT || signal == SIGTERM { return }
        }
        if let error = outcome.error.withLock({ $0 }) {
            throw ValidationError("cannot serve the dashboard on \(listen): \(error); choose another --listen HOST:PORT")
        }
    }

    /// `--listen` as host and port; an IPv6 host in brackets (`[::1]:8737`).
    private func address() throws -> (String, Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ValidationError("--listen \(listen) is not HOST:PORT (for example 127.0.0.1:8737)")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("--listen \(listen) names no host (for example 127.0.0.1:\(port))") }
        return (host, port)
    }

    private final class Outcome: Sendable {
        let error = Mutex<String?>(nil)
    }
}
