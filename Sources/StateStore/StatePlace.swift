import Foundation

/// Where one engine's kept state lives (docs/state.md): a folder per JACK client under the state
/// folder, and in it a name per graph file, so that two graphs run under the same client name
/// (every example graph runs as `iaa`) each resume their own acknowledged changes.
public struct StatePlace: Sendable, Equatable {
    /// `BASE/CLIENT`, made 0700 when the state is opened.
    public let folder: String
    /// The graph file's name without its extension, then 8 hex digits of its absolute path
    /// (`demo-1c2f9a0b`): readable, and distinct for two `demo.json` in different folders.
    public let name: String

    public init(base: String, client: String, graphPath: String) {
        folder = base + "/" + client
        let absolute = URL(fileURLWithPath: graphPath).standardizedFileURL.path
        let stem = ((absolute as NSString).lastPathComponent as NSString).deletingPathExtension
        let readable = String(stem.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_") ? Character(scalar) : "_"
        }.prefix(64))
        name = (readable.isEmpty ? "graph" : readable) + "-" + Self.digest(absolute)
    }

    /// FNV-1a over the path's UTF-8, folded to 32 bits: stable across runs and builds, which
    /// Swift's `Hasher` (seeded per process) is not.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        let hex = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// State kept by an iaa that named it by client alone (`BASE/CLIENT.snapshot.json` and its
    /// journal) moves here when it grew from this graph file's text and nothing is kept here yet;
    /// state of another graph stays where it is. Returns what it did, for stderr, or nil.
    public func adoptEarlierLayout(base: String, client: String, sourceText: String) -> String? {
        let old = base + "/" + client
        let snapshot = old + ".snapshot.json"
        let here = folder + "/" + name
        // Read as the state is read (``StateFiles``): in a folder no one else may write, never
        // through a link, a FIFO or past the bound.
        guard !FileManager.default.fileExists(atPath: here + ".snapshot.json"), StateFiles.untrustedFolder(base) == nil,
              let kept = try? StateSnapshot.read(snapshot), kept.sourceText == sourceText else { return nil }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        // The journal first: a snapshot moved without its journal would drop the changes after it.
        for suffix in [".journal.sqlite", ".journal.sqlite-wal", ".journal.sqlite-shm", ".snapshot.json"]
        where FileManager.default.fileExists(atPath: old + suffix) {
            guard rename(old + suffix, here + suffix) == 0 else {
                return "the state kept as \(snapshot) could not be moved to \(here)\(suffix): \(String(cString: strerror(errno)))"
            }
        }
        return "the state kept as \(snapshot) (an earlier iaa's layout) is now \(here).snapshot.json"
    }
}
