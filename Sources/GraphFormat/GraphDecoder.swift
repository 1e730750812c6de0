import AudioGraph
import Foundation
import LocatedJSON
import Yams

/// Turns a graph, timeline or grants file's text into a located ``JSONNode`` document, or into
/// located syntax errors.
///
/// Files are JSON, read by ``JSONReader`` (which reports what JSON forbids: trailing commas,
/// comments, unquoted words and keys, single quotes, duplicate keys); a file named `.yaml` or
/// `.yml` is read by Yams. The one file of GraphFormat that imports Foundation and Yams: everything
/// after it works on ``JSONNode``.
enum GraphDecoder {
    /// The decoded document (nil when the text cannot be parsed) and every syntax finding.
    struct Result {
        var root: JSONNode?
        var diagnostics: [Diagnostic]
    }

    /// Whether `file` is read as strict JSON (true) or as YAML.
    static func isStrict(file: String) -> Bool {
        !(file.hasSuffix(".yaml") || file.hasSuffix(".yml"))
    }

    enum ReadResult {
        case text(String)
        case failure(Diagnostic)
    }

    /// Reads a file as UTF-8, or explains why it could not.
    static func read(path: String) -> ReadResult {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file"
            return .failure(Diagnostic(code: .io, file: path, message: reason,
                                       hint: "check the path and its permissions"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(Diagnostic(code: .io, file: path, message: "the file is not valid UTF-8"))
        }
        return .text(text)
    }

    /// Decodes `text`; `emptyHint` says what a document of this kind looks like, for an empty file.
    static func decode(text: String, file: String,
                       emptyHint: String = "a graph is a JSON object: { \"format\": \"iaa-graph/1\", … }") -> Result {
        guard isStrict(file: file) else { return decodeYAML(text: text, file: file, emptyHint: emptyHint) }
        let read = JSONReader.read(text)
        let diagnostics = read.findings.map { finding in
            if case .syntax("the text is empty") = finding.kind {
                return Diagnostic(code: .syntax, file: file, line: 1, column: 1, message: "the file is empty", hint: emptyHint)
            }
            let code: GraphErrorCode = if case .duplicateKey = finding.kind { .duplicateKey } else { .syntax }
            return Diagnostic(code: code, file: file, line: finding.location.line, column: finding.location.column,
                              pointer: finding.pointer, message: finding.message, hint: finding.hint)
        }
        return Result(root: read.root, diagnostics: diagnostics)
    }

    /// YAML files (`.yaml`, `.yml`) go through Yams, whose tree becomes the same ``JSONNode``s
    /// (on a tape made from values).
    private static func decodeYAML(text: String, file: String, emptyHint: String) -> Result {
        // Yams recurses once per level and would run out of stack.
        if let tooDeep = YAMLDepthGuard.firstTooDeep(text) {
            return Result(diagnostics: [Diagnostic(code: .syntax, file: file, line: tooDeep.line, column: tooDeep.column,
                                                   message: "arrays and objects nest deeper than \(YAMLDepthGuard.maximumDepth) levels",
                                                   hint: "a graph nests a few levels; check the brackets")])
        }
        let composed: Node?
        do {
            composed = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            return Result(diagnostics: [syntaxDiagnostic(error, file: file)])
        } catch {
            return Result(diagnostics: [Diagnostic(code: .syntax, file: file, message: "\(error)")])
        }
        guard let composed else {
            return Result(diagnostics: [Diagnostic(code: .syntax, file: file, line: 1, column: 1,
                                                   message: "the file is empty", hint: emptyHint)])
        }
        var converter = NodeConverter(file: file)
        let root = converter.convert(composed, pointer: "")
        return Result(root: root, diagnostics: converter.diagnostics.inDocumentOrder())
    }

    /// The line and column (in Unicode scalars; lines end at LF, CR or CRLF) of the `offset`th
    /// character of `text`.
    static func location(ofCharacter offset: Int, in text: String) -> SourceLocation? {
        guard offset >= 0, let end = text.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex) else {
            return nil
        }
        var position = TextPosition()
        for scalar in text.unicodeScalars[..<end] { position.advance(over: scalar) }
        return position.location
    }

    private static func syntaxDiagnostic(_ error: YamlError, file: String) -> Diagnostic {
        func made(_ mark: Mark?, _ problem: String, _ context: YamlError.Context?) -> Diagnostic {
            var message = problem
            if let context {
                message += " (\(context.text) at line \(context.mark.line), column \(context.mark.column))"
            }
            return Diagnostic(code: .syntax, file: file, line: mark?.line, column: mark?.column, message: message)
        }
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return made(mark, problem, context)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "\"\($0)\"" }.joined(separator: ", ")
            return Diagnostic(code: .duplicateKey, file: file, line: context.mark.line, column: context.mark.column,
                              message: "duplicate key \(keys)", hint: "keep one of them")
        case .reader(let problem, let offset, let value, let yaml):
            // libyaml's reader stops at a character it does not take; locate it as JSON counts.
            let location = offset.flatMap { Self.location(ofCharacter: $0, in: yaml) }
            let character = Unicode.Scalar(UInt32(bitPattern: value)).map { " (U+\(String($0.value, radix: 16, uppercase: true)))" } ?? ""
            return Diagnostic(code: .syntax, file: file, line: location?.line, column: location?.column,
                              message: problem + character)
        default:
            return made(nil, "\(error)", nil)
        }
    }
}

/// Converts Yams nodes to ``JSONNode``s, with YAML's looser scalars (`yes`, `~`, `.5`) read as
/// YAML reads them.
private struct NodeConverter {
    let file: String
    var diagnostics: [Diagnostic] = []

    private static func location(_ mark: Mark?) -> SourceLocation? {
        mark.map { SourceLocation(line: $0.line, column: $0.column) }
    }

    mutating func convert(_ node: Node, pointer: String) -> JSONNode {
        let location = Self.location(node.mark)
        switch node {
        case .scalar(let scalar):
            let text = scalar.string
            let value = scalar.style == .plain ? Self.plainValue(text) ?? .string(text) : .string(text)
            return JSONNode(value, location: location)
        case .sequence(let sequence):
            let elements = sequence.enumerated().map { index, element in
                convert(element, pointer: JSONPointer.appending(pointer, index))
            }
            return JSONNode(.array(elements), location: location)
        case .mapping(let mapping):
            var members: [JSONNode.Member] = []
            for (key, value) in mapping {
                guard case .scalar(let keyScalar) = key else {
                    diagnostics.append(Diagnostic(code: .syntax, file: file, line: key.mark?.line, column: key.mark?.column,
                                                  pointer: pointer, message: "object keys must be strings"))
                    continue
                }
                let memberPointer = JSONPointer.appending(pointer, keyScalar.string)
                members.append(JSONNode.Member(key: keyScalar.string, keyLocation: Self.location(key.mark),
                                               value: convert(value, pointer: memberPointer)))
            }
            return JSONNode(.object(members), location: location)
        case .alias(let alias):
            diagnostics.append(Diagnostic(code: .syntax, file: file, line: alias.mark?.line, column: alias.mark?.column,
                                          pointer: pointer, message: "YAML aliases are not supported in graph files"))
            return JSONNode(.null, location: location)
        }
    }

    /// A plain scalar's meaning: JSON's `true`, `false`, `null` and numbers, and YAML's spellings.
    private static func plainValue(_ text: String) -> JSONNode.Value? {
        switch text {
        case "true", "True", "TRUE", "yes", "Yes": return .bool(true)
        case "false", "False", "FALSE", "no", "No": return .bool(false)
        case "null", "~", "Null", "NULL", "": return .null
        default: return Double(text).map { .number($0, text: text) }
        }
    }
}

/// Finds flow brackets nested deeper than YAML files may nest, before Yams recurses into them.
enum YAMLDepthGuard {
    static let maximumDepth = 512

    /// Where the first bracket too deep is, outside quoted strings and comments; nil when none is.
    static func firstTooDeep(_ text: String) -> SourceLocation? {
        var depth = 0
        var position = TextPosition()
        var quote: Unicode.Scalar?
        var comment = false
        for scalar in text.unicodeScalars {
            let here = position.location
            position.advance(over: scalar)
            if scalar == "\n" || scalar == "\r" {
                comment = false
            } else if comment {
                continue
            } else if let open = quote {
                if scalar == open { quote = nil }
            } else {
                switch scalar {
                case "\"", "'": quote = scalar
                case "#": comment = true
                case "[", "{":
                    depth += 1
                    if depth > maximumDepth { return here }
                case "]", "}": depth = max(0, depth - 1)
                default: break
                }
            }
        }
        return nil
    }
}

/// A line and column in text read scalar by scalar: lines end at LF, CR or CRLF; columns count
/// scalars (as ``SourceLocation`` says).
private struct TextPosition {
    private var line = 1, column = 1
    private var previous: Unicode.Scalar?

    var location: SourceLocation { SourceLocation(line: line, column: column) }

    mutating func advance(over scalar: Unicode.Scalar) {
        if scalar == "\n" {
            if previous != "\r" { line += 1 }
            column = 1
        } else if scalar == "\r" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        previous = scalar
    }
}
