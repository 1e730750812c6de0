import ArgumentParser
import ControlSocket

/// `iaa device silent on|off`, `iaa device locked on|off`: the Ring/Silent switch and the screen lock.
struct Device: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Flip the device's Ring/Silent switch or lock its screen.",
        discussion: "Silent mutes apps whose category obeys the switch (ambient, soloAmbient); locked stops apps without background audio.")

    /// The two switches the policy reads.
    enum Setting: String, ExpressibleByArgument, CaseIterable {
        case silent, locked
    }

    /// A switch's position.
    enum Position: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @OptionGroup var engine: EngineOptions

    @Argument(help: "silent or locked.")
    var setting: Setting

    @Argument(help: "on or off.")
    var position: Position

    func run() throws {
        let on = position == .on
        let result = try engine.connect().call(setting == .silent ? .device(silent: on, locked: nil) : .device(silent: nil, locked: on))
        OutcomeReport.print(result)
    }
}
