import Foundation

/// The whole kept state at one point: the graph as `iaa dump --graph` writes it, what it grew
/// from, and the journal records it includes (through `seq`).
public struct StateSnapshot: Codable, Sendable, Equatable {
    public static let currentFormat = "iaa-state/1"

    public var format = Self.currentFormat
    /// The last journal record this snapshot includes.
    public var seq: Int64
    /// The graph file the state grew from, as given to `iaa run`, and its text then: a file that
    /// no longer reads so is one the user edited, and it wins.
    public var source: String
    public var sourceText: String
    /// The running graph, as a graph file.
    public var graph: String
    /// Rule connections removed by hand (`[source, destination]`), left alone until the graph is
    /// applied again or the program at their outside end comes back.
    public var held: [[String]]

    public init(seq: Int64, source: String, sourceText: String, graph: String, held: [[String]]) {
        self.seq = seq
        self.source = source
        self.sourceText = sourceText
        self.graph = graph
        self.held = held
    }

    /// Reads the snapshot at `path`; nil when there is none. A link, a FIFO, a file of another
    /// user's or one larger than any snapshot is refused as damaged (``StateFiles``).
    static func read(_ path: String) throws(StateStoreError) -> StateSnapshot? {
        guard let data = try StateFiles.read(path, limit: StateFiles.snapshotLimit) else { return nil }
        let format = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["format"] as? String
        if let format, format != currentFormat, format.hasPrefix("iaa-state/") {
            throw StateStoreError(.newer, "\(path) is \(format), written by a newer iaa (this one reads \(currentFormat))")
        }
        do {
            return try JSONDecoder().decode(StateSnapshot.self, from: data)
        } catch {
            throw StateStoreError(.damaged, "\(path) is not an \(currentFormat) snapshot: \(error)")
        }
    }

    /// Replaces the snapshot at `path` atomically: a temporary file beside it, `fsync`ed, renamed
    /// over it, then the folder `fsync`ed so the rename itself is on disk. A crash at any point
    /// leaves either the old snapshot or the new one.
    func write(to path: String) throws(StateStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw StateStoreError(.other, "\(path): \(error)") }
        // Made anew, never opened through what is there: a link planted at the temporary name
        // would have had the engine overwrite the file it points to.
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure(errno, "create", temporary) }
        var failed = StateFiles.writeAll(descriptor, data)
        if failed == 0, fsync(descriptor) != 0 { failed = errno }
        close(descriptor)
        if failed == 0, rename(temporary, path) != 0 { failed = errno }
        guard failed == 0 else {
            unlink(temporary)
            throw Self.failure(failed, "write", path)
        }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    private static func failure(_ code: Int32, _ doing: String, _ path: String) -> StateStoreError {
        let kind: StateStoreError.Kind = switch code {
        case ENOSPC, EDQUOT: .full
        case EROFS, EACCES, EPERM, ENOENT: .readOnly
        default: .other
        }
        return StateStoreError(kind, "\(path): cannot \(doing): \(String(cString: strerror(code)))")
    }
}
