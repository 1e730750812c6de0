import ControlSocket
import Engine
import Foundation

/// The optional configuration file, `$XDG_CONFIG_HOME/iaa/config.json` (`~/.config/iaa/…` when
/// XDG_CONFIG_HOME is unset; `IAA_CONFIG` names another): defaults for what the environment and
/// the command line may also say, which win over it.
///
/// ```json
/// { "server": "studio", "client": "iaa", "pluginPath": ["~/plugins"], "logLevel": "warning" }
/// ```
/// `server` is the JACK server (as JACK_DEFAULT_SERVER), `client` the JACK client name when neither
/// `-n` nor the graph's `jack.client` names one (as IAA_CLIENT), `pluginPath` the folders searched
/// for plugins named without a path (as IAA_PLUGIN_PATH), `logLevel` error, warning, info or debug
/// (as IAA_LOG_LEVEL). Each fills the environment variable when it is unset, so every command
/// and the programs it starts see one set of defaults.
struct UserConfiguration {
    /// Each key, the environment variable it fills, and whether its value is a list of folders.
    static let keys: [(key: String, variable: String, folders: Bool)] = [
        ("server", "JACK_DEFAULT_SERVER", false), ("client", "IAA_CLIENT", false),
        ("pluginPath", "IAA_PLUGIN_PATH", true), ("logLevel", "IAA_LOG_LEVEL", false),
    ]

    static var path: String {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["IAA_CONFIG"], !explicit.isEmpty { return explicit }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return base + "/iaa/config.json"
    }

    /// Reads the file, if there is one, into the unset environment variables; a broken file is an
    /// error that names it and the place, and stops the command (exit 1).
    static func applyDefaults() {
        let path = Self.path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        do {
            for (variable, value) in try values(text) where ProcessInfo.processInfo.environment[variable]?.isEmpty ?? true {
                setenv(variable, value, 1)
            }
        } catch let problem as Problem {
            StandardError.write("\(path):\(problem.location(in: text)): error[config]: \(problem.message)", level: .error)
            exit(1)
        } catch {
            exit(1)
        }
        if let level = ProcessInfo.processInfo.environment["IAA_LOG_LEVEL"].flatMap(LogLevel.init(name:)) {
            StandardError.level = level
        }
    }

    struct Problem: Error {
        let message: String
        let offset: Int?

        /// `LINE:COLUMN` of the byte offset, or `1:1` when the problem has no place.
        func location(in text: String) -> String {
            let prefix = text.utf8.prefix(offset ?? 0)
            let line = prefix.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = prefix.count - (prefix.lastIndex(of: UInt8(ascii: "\n")).map { prefix.distance(from: prefix.startIndex, to: $0) + 1 } ?? 0) + 1
            return "\(line):\(column)"
        }
    }

    /// The environment variables the file sets, checked strictly (unknown keys are errors).
    static func values(_ text: String) throws -> [(String, String)] {
        let document: ControlJSON
        do {
            document = try ControlJSONParser.parse(text)
        } catch {
            throw Problem(message: "not valid JSON: \(error.message)", offset: error.offset)
        }
        guard let members = document.objectValue else {
            throw Problem(message: "the configuration is a JSON object such as {\"server\": \"default\"}", offset: nil)
        }
        var result: [(String, String)] = []
        for (key, value) in members {
            guard let known = keys.first(where: { $0.key == key }) else {
                throw Problem(message: "unknown key \"\(key)\" (keys: \(keys.map(\.key).joined(separator: ", ")))", offset: nil)
            }
            if known.folders {
                let folders = value.arrayValue?.compactMap(\.stringValue) ?? value.stringValue.map { [$0] }
                guard let folders, folders.count == (value.arrayValue?.count ?? 1) else {
                    throw Problem(message: "\"\(key)\" is a folder or a list of folders", offset: nil)
                }
                result.append((known.variable, folders.map(expandingTilde).joined(separator: ":")))
            } else {
                guard let string = value.stringValue, !string.isEmpty else {
                    throw Problem(message: "\"\(key)\" is a non-empty string", offset: nil)
                }
                if key == "logLevel" && LogLevel(name: string) == nil {
                    throw Problem(message: "\"logLevel\" is one of \(LogLevel.names), not \"\(string)\"", offset: nil)
                }
                result.append((known.variable, string))
            }
        }
        return result
    }

    /// $HOME, as shells and the XDG base directories read it (Foundation's NSHomeDirectory reads
    /// the password database instead).
    static var home: String {
        ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }

    static func expandingTilde(_ path: String) -> String {
        path == "~" || path.hasPrefix("~/") ? home + path.dropFirst() : path
    }
}
