import ArgumentParser
import Foundation

/// `iaa plugin sdk [--cflags]`: where the plugin SDK is, for build scripts (as `llvm-config` and
/// `pkg-config` answer for their libraries). The SDK is a Swift package with the C header
/// (`Sources/IAAPluginABI/include/iaa_plugin.h`) and NodeKit; scaffolded plugins ask for it
/// instead of holding a path, so they build on any machine with iaa installed.
struct PluginSDK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk",
        abstract: "Print the folder of the plugin SDK (iaa_plugin.h and NodeKit).",
        discussion: """
            Looked up in this order: $IAA_SDK; PREFIX/share/iaa/sdk next to an installed binary \
            (PREFIX/bin/iaa, as tools/install lays it out); SDK/ in the checkout a built binary lives in.
            """)

    @Flag(help: "Print the C compiler flags that find iaa_plugin.h instead.")
    var cflags = false

    func run() throws {
        let sdk = try Self.locate()
        print(cflags ? "-I\(sdk)/Sources/IAAPluginABI/include" : sdk)
    }

    static let header = "Sources/IAAPluginABI/include/iaa_plugin.h"

    /// The SDK folder, or a usage error that says where it looked.
    static func locate() throws -> String {
        let binary = URL(fileURLWithPath: executable()).resolvingSymlinksInPath()
        var places: [String] = []
        if let variable = ProcessInfo.processInfo.environment["IAA_SDK"], !variable.isEmpty { places.append(variable) }
        places.append(binary.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/iaa/sdk").path)
        var folder = binary.deletingLastPathComponent()
        while folder.path != "/" {
            places.append(folder.path + "/SDK")
            folder = folder.deletingLastPathComponent()
        }
        for place in places where FileManager.default.fileExists(atPath: place + "/" + header) {
            return URL(fileURLWithPath: place).standardizedFileURL.path
        }
        throw ValidationError("""
            cannot find the plugin SDK (\(header)): not in $IAA_SDK, not in PREFIX/share/iaa/sdk next to \
            \(binary.path), not in SDK/ of a checkout above it; install iaa with tools/install, or set IAA_SDK to an iaa checkout's SDK/
            """)
    }

    /// This binary's path.
    static func executable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "iaa"
    }
}
