import AudioSession
import FileTrust
import LocatedJSON
#if canImport(Glibc)
import Glibc
#endif

/// Loads a grants file (`iaa-grants/1`) after checking who could have written it:
///
/// ```json
/// { "format": "iaa-grants/1",
///   "apps": { "phone": ["priority-audio", "microphone", "inter-app-audio"], "*": ["inter-app-audio"] } }
/// ```
///
/// Like sshd's StrictModes, the file must be owned by the engine's user (or root) and writable by
/// nobody else, and so must every folder above it, unless the folder has the sticky bit (as
/// `/tmp` does, where others cannot replace our entries). Otherwise anyone who can write it could
/// grant themselves anything.
public enum GrantsFile {
    public static let format = "iaa-grants/1"

    public struct LoadResult: Sendable {
        public let grants: Grants?
        public let diagnostics: [Diagnostic]
    }

    public static func load(path: String) -> LoadResult {
        if let insecure = checkOwnership(path) { return LoadResult(grants: nil, diagnostics: [insecure]) }
        switch GraphDecoder.read(path: path) {
        case .failure(let diagnostic):
            return LoadResult(grants: nil, diagnostics: [diagnostic])
        case .text(let text):
            return load(text: text, file: path)
        }
    }

    /// Parses grants text (no ownership check: that is about a file).
    public static func load(text: String, file: String) -> LoadResult {
        let decoded = GraphDecoder.decode(text: text, file: file,
                                          emptyHint: "a grants file is a JSON object: { \"format\": \"\(format)\", \"apps\": { … } }")
        guard let root = decoded.root else { return LoadResult(grants: nil, diagnostics: decoded.diagnostics) }
        var sink = DiagnosticSink(file: file, sourceMap: SourceMap(root: root))
        guard root.isObject else {
            sink.error(.wrongType, at: "", "a grants file must be a JSON object, not \(root.typeName)",
                       hint: "{ \"format\": \"\(format)\", \"apps\": { \"APP\": [\"inter-app-audio\"] } }")
            return LoadResult(grants: nil, diagnostics: decoded.diagnostics + sink.diagnostics)
        }
        let object = ObjectReader(root, pointer: "", allowed: ["format", "apps"], sink: &sink)
        if let written = object.string("format", &sink, required: true), written != format {
            sink.error(.unsupportedFormat, at: "/format", "unsupported format \(JSONText.quoted(written))",
                       hint: "write \"format\": \"\(format)\"")
        }
        var allowed: [String: Set<Entitlement>] = [:]
        if let apps = object.node("apps", of: "object of app ids", &sink, check: { $0.isObject }) {
            // Every key is an app id (or *), so each is allowed; `strings` reports wrong types.
            let members = apps.members ?? []
            let byApp = ObjectReader(apps, pointer: "/apps", allowed: members.map(\.key), sink: &sink)
            for member in members {
                guard let names = byApp.strings(member.key, &sink) else { continue }
                var failed = false
                let values: [(value: Entitlement, pointer: String)] = SessionVocabulary.values(
                    names, "entitlement", listing: "entitlements", at: JSONPointer.appending("/apps", member.key), &sink,
                    failed: &failed)
                allowed[member.key] = Set(values.map(\.value))
            }
        } else if object.member("apps") == nil {
            sink.error(.missingKey, at: "/apps", "missing required key \"apps\"",
                       hint: "\"apps\": { \"APP\": [\"inter-app-audio\"], \"*\": [] }")
        }
        let diagnostics = (decoded.diagnostics + sink.diagnostics).inDocumentOrder()
        let failed = diagnostics.contains { $0.severity == .error }
        return LoadResult(grants: failed ? nil : Grants(file: file, allowed: allowed), diagnostics: diagnostics)
    }

    /// The StrictModes check: nil when only the engine's user (or root) could have written the
    /// file and every folder above it.
    static func checkOwnership(_ path: String) -> Diagnostic? {
        let me = geteuid()
        func refuse(_ message: String, hint: String) -> Diagnostic {
            Diagnostic(code: .insecureGrants, file: path, message: message, hint: hint)
        }
        guard let resolved = realpath(path, nil) else {
            return Diagnostic(code: .io, file: path, message: "cannot read the grants file: \(String(cString: strerror(errno)))")
        }
        let full = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(full, &info) == 0 else {
            return Diagnostic(code: .io, file: path, message: "cannot read the grants file: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            return refuse("the grants file is not a regular file", hint: "point --grants at a regular file")
        }
        switch OwnershipRule.problem(full, isFile: true) {
        case nil: return nil
        case .owner(let owned, let uid) where owned == full:
            return refuse("the grants file is owned by uid \(uid), not by this user (uid \(me)) or root; whoever owns it decides every app's entitlements",
                          hint: "chown \(me) \(path)")
        case .mode(let owned, let mode) where owned == full:
            return refuse("the grants file has mode \(OwnershipRule.octal(mode)): group or others may change who gets which entitlement",
                          hint: "chmod go-w \(path)")
        case .owner(let folder, let uid):
            return refuse("the folder \(folder) is owned by uid \(uid), who could replace the grants file",
                          hint: "keep the grants file in a folder owned by you or root")
        case .mode(let folder, let mode):
            return refuse("the folder \(folder) has mode \(OwnershipRule.octal(mode)): group or others could replace the grants file",
                          hint: "chmod go-w \(folder)")
        case .unreadable:
            // A folder above a file that could be read: nothing to judge it by, as before.
            return nil
        }
    }
}
