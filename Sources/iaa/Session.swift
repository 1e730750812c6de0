import ArgumentParser
import ControlSocket

/// `iaa session APP set|activate|deactivate`: an app's AVAudioSession calls, made live.
struct Session: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Set an app's session category, activate or deactivate its session, start or stop its audio.",
        usage: """
            iaa session <app> set --category <category> [--mode <mode>] [--options <a,b>] [--preferred-buffer <frames>]
            iaa session <app> activate
            iaa session <app> deactivate [--notify-others]
            iaa session <app> start-audio [--record]
            iaa session <app> stop-audio
            """,
        discussion: """
            Refusals carry AVAudioSession's names and four-character codes, e.g. \
            `error[cannotInterruptOthers]: ('!int') …`. Events the action caused are printed one per line. \
            As on iOS, deactivating a session whose audio runs is `isBusy`: stop-audio first.
            """)

    /// What to do with the session.
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case set, activate, deactivate
        case startAudio = "start-audio"
        case stopAudio = "stop-audio"
    }

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The app's id.")
    var app: String

    @Argument(help: "set, activate, deactivate, start-audio or stop-audio.")
    var action: Action

    @Option(help: "The session category (set).",
            completion: .list(["ambient", "soloAmbient", "playback", "record", "playAndRecord", "multiRoute"]))
    var category: String?

    @Option(help: "The session mode (set).",
            completion: .list(["default", "voiceChat", "videoChat", "gameChat", "videoRecording", "measurement",
                               "moviePlayback", "spokenAudio", "voicePrompt"]))
    var mode: String?

    @Option(help: ArgumentHelp("Category options, comma-separated (set): mixWithOthers,duckOthers,…", valueName: "a,b"))
    var options: String?

    @Option(help: ArgumentHelp("Ask JACK for this buffer size (set).", valueName: "frames"))
    var preferredBuffer: Int?

    @Flag(help: "Tell interrupted apps they may resume (deactivate).")
    var notifyOthers = false

    @Flag(help: "Start recording as well as playing (start-audio).")
    var record = false

    func validate() throws {
        let setOnly = category != nil || mode != nil || options != nil || preferredBuffer != nil
        if record && action != .startAudio { throw ValidationError("--record goes with start-audio") }
        switch action {
        case .set:
            if category == nil && preferredBuffer == nil { throw ValidationError("session set needs --category (or --preferred-buffer)") }
            if category == nil && (mode != nil || options != nil) { throw ValidationError("--mode and --options go with --category") }
            if let preferredBuffer, preferredBuffer <= 0 { throw ValidationError("--preferred-buffer takes a positive number of frames") }
            if notifyOthers { throw ValidationError("--notify-others goes with deactivate") }
        case .activate:
            if setOnly || notifyOthers { throw ValidationError("session activate takes no options") }
        case .deactivate:
            if setOnly { throw ValidationError("session deactivate takes only --notify-others") }
        case .startAudio, .stopAudio:
            if setOnly || notifyOthers { throw ValidationError("session \(action.rawValue) takes no options\(action == .startAudio ? " but --record" : "")") }
        }
    }

    func run() throws {
        let client = try engine.connect()
        switch action {
        case .set:
            if let category {
                let names = options.map { $0.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty } }
                OutcomeReport.print(try client.call(.setCategory(app: app, category: category, mode: mode, options: names)))
            }
            if let preferredBuffer {
                let result = try client.call(.preferredBuffer(app: app, frames: preferredBuffer))
                Output.line("buffer size: \(BufferReply(json: result).map { String($0.bufferSize) } ?? "?") frames")
            }
        case .activate:
            OutcomeReport.print(try client.call(.activate(app: app)))
        case .deactivate:
            OutcomeReport.print(try client.call(.deactivate(app: app, notifyOthers: notifyOthers)))
        case .startAudio:
            OutcomeReport.print(try client.call(.startAudio(app: app, recording: record)))
        case .stopAudio:
            OutcomeReport.print(try client.call(.stopAudio(app: app)))
        }
    }
}
