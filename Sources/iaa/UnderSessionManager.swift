import ControlSocket
import Engine
import Foundation
import SessionManager

/// iaa as a New Session Manager client. The server starts `iaa` with no arguments and `NSM_URL`
/// set; iaa announces itself, waits for `open`, runs `PATH/graph.json` as JACK client CLIENT_ID
/// (creating an empty graph the first time), and on `save` writes the running engine's graph
/// there, hand-made changes included, through its own control socket (`dump --graph`).
enum UnderSessionManager {
    static func run(url: String) -> Int32 {
        guard let client = NSMClient(url: url) else {
            StandardError.write("iaa: NSM_URL \"\(url)\" is not an OSC address such as osc.udp://host:port/", level: .error)
            return 1
        }
        // Every thread made from here on leaves SIGINT and SIGTERM to the engine, which stops on them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        client.announce(executable: URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent)
        guard let open = waitForOpen(client) else { return 1 }
        let graph = open.path + "/graph.json"
        do {
            try FileManager.default.createDirectory(atPath: open.path, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: graph) {
                try emptyGraph(named: open.displayName).write(toFile: graph, atomically: true, encoding: .utf8)
            }
        } catch {
            client.fail("/nsm/client/open", "cannot create \(graph): \(error)")
            return 1
        }
        let socket = SocketLocation.defaultPath(client: open.clientID)
        let session = Thread { serve(client, graph: graph, socket: socket) }
        session.start()
        var options = LiveEngine.Options(graphPath: graph, clientName: open.clientID, socketPath: socket)
        // The session manager keeps the state (its save); a session opened is the one saved.
        options.keepState = false
        return LiveEngine(options: options).run()
    }

    /// The server's `open`, within 30 s of the announcement.
    private static func waitForOpen(_ client: NSMClient) -> NSMClient.Open? {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            switch client.receive(milliseconds: 100) {
            case .open(let open): return open
            case .announced(let server): StandardError.write("iaa: announced to the session manager \(server)")
            case .failed(let message):
                StandardError.write("iaa: the session manager refused iaa: \(message)", level: .error)
                return nil
            case .save, nil: continue
            }
        }
        StandardError.write("iaa: the session manager at NSM_URL did not ask iaa to open a session within 30 s", level: .error)
        return nil
    }

    /// Answers the session manager for as long as the engine runs.
    private static func serve(_ client: NSMClient, graph: String, socket: String) {
        var started = false
        for _ in 0..<300 where !started {
            started = (try? ControlClient(path: socket).call(.status).get()) != nil
            if !started { usleep(50_000) }
        }
        guard started else {
            client.fail("/nsm/client/open", "the engine did not start on \(graph); its log says why")
            return
        }
        client.reply(to: "/nsm/client/open", "running \(graph)")
        while true {
            switch client.receive(milliseconds: 200) {
            case .save:
                do {
                    let reply = try ControlClient(path: socket).call(.dump(graph: true)).get()
                    guard let text = GraphFileReply(json: reply)?.file else { throw NSMError.noGraph }
                    try text.write(toFile: graph, atomically: true, encoding: .utf8)
                    client.reply(to: "/nsm/client/save", "saved \(graph)")
                } catch {
                    client.fail("/nsm/client/save", "cannot save \(graph): \(error)")
                }
            case .open:
                client.fail("/nsm/client/open", "iaa cannot switch sessions while it runs; the session manager restarts it")
            case .announced, .failed, nil:
                continue
            }
        }
    }

    enum NSMError: Error { case noGraph }

    static func emptyGraph(named name: String) -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return """
            {
              "format": "iaa-graph/1",
              "name": "\(safe.isEmpty ? "session" : safe)",
              "apps": []
            }

            """
    }
}
