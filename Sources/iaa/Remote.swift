import ArgumentParser
import ControlSocket

/// `iaa remote play|pause|…`: a remote control event, which goes to the Now Playing app.
struct Remote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Send a remote control event (headset button, lock screen) to the Now Playing app.")

    /// MPRemoteCommandCenter's transport commands.
    typealias Command = ControlCall.RemoteCommand

    @OptionGroup var engine: EngineOptions

    @Argument(help: "play, pause, togglePlayPause, next or previous.")
    var command: Command

    func run() throws {
        let result = try engine.connect().call(.remote(command: command))
        Output.line("\(command.rawValue) → \(RemoteReply(json: result)?.app ?? "?")")
    }
}
