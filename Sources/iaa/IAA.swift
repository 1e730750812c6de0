import ArgumentParser
import Foundation

/// The `iaa` command: one subcommand per file, modelled on the JACK and PipeWire tools. Every
/// command states its `commandName`: ArgumentParser derives a missing one from the type's name,
/// and the casts that takes cost every run of `iaa` milliseconds of protocol-conformance lookups.
@main
struct IAA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iaa",
        abstract: "An inter-app audio routing graph engine on JACK.",
        discussion: """
            Loads graph files (iaa-graph/1) that describe apps and their connections, runs them as one \
            JACK client, validates them and renders them offline.
            """,
        version: "0.1.0",
        subcommands: [Run.self, Validate.self, Render.self, ListNodes.self, Plugins.self, PluginCommand.self,
                      Status.self, Ports.self, Dump.self, GetParameter.self, GraphPicture.self, Events.self, Top.self,
                      Connect.self, Disconnect.self, SetParameter.self, Apply.self, Reload.self,
                      Session.self, AppLifecycle.self, Device.self, Interrupt.self, Remote.self, Enable.self,
                      IsolatedNodeCommand.self, Web.self])

    /// The configuration file fills unset environment variables before any command reads them.
    static func main() {
        // IAA_PARSE_ONLY=1: the arguments are parsed and validated as for a real run, the verb they
        // name is printed, and nothing runs. The documentation's test checks every documented
        // command line so, without an engine or a JACK server: `--help` cannot, since it prints
        // help even after a misplaced option.
        if ProcessInfo.processInfo.environment["IAA_PARSE_ONLY"] == "1" {
            do {
                let command = try parseAsRoot()
                print(type(of: command).configuration.commandName ?? "iaa")
                Foundation.exit(0)
            } catch {
                exit(withError: error)
            }
        }
        UserConfiguration.applyDefaults()
        // New Session Manager starts its clients by executable name alone, with NSM_URL set.
        if CommandLine.arguments.count == 1, let url = ProcessInfo.processInfo.environment["NSM_URL"], !url.isEmpty {
            Foundation.exit(UnderSessionManager.run(url: url))
        }
        main(nil)
    }
}
