import Foundation
import Yams

/// Turns a graph file's text into a located ``JSONNode`` tree, or into located syntax errors.
///
/// The one file of AudioGraph that imports Foundation and Yams (Yams needs Foundation): everything
/// after it works on ``JSONNode``. Yams gives every node a line and column, which Foundation's
/// `JSONDecoder` does not. Since YAML is a superset of JSON, strict mode (every file not named
/// `.yaml`/`.yml`) rejects what JSON forbids: plain and single-quoted strings, non-string keys,
/// block collections, anchors, trailing commas, comments and duplicate keys.
enum GraphDecoder {
    /// The decoded tree (nil when the text cannot be parsed) and every syntax finding.
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
        let strict = isStrict(file: file)
        var diagnostics: [Diagnostic] = []
        var duplicatesFound = false
        if strict {
            for finding in JSONTextScanner.scan(text) {
                if case .duplicateKey = finding.kind { duplicatesFound = true }
                diagnostics.append(diagnostic(for: finding, file: file))
            }
        }
        let composed: Node?
        do {
            composed = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            // The scanner already located every duplicate key more precisely than Yams does.
            if case .duplicatedKeysInMapping = error, duplicatesFound { return Result(diagnostics: diagnostics) }
            diagnostics.append(syntaxDiagnostic(error, file: file))
            return Result(diagnostics: diagnostics.inDocumentOrder())
        } catch {
            diagnostics.append(Diagnostic(code: .syntax, file: file, message: "\(error)"))
            return Result(diagnostics: diagnostics)
        }
        guard let composed else {
            diagnostics.append(Diagnostic(code: .syntax, file: file, line: 1, column: 1,
                                          message: "the file is empty", hint: emptyHint))
            return Result(diagnostics: diagnostics)
        }
        var converter = NodeConverter(file: file, strict: strict)
        let root = converter.convert(composed, pointer: "")
        diagnostics += converter.diagnostics
        return Result(root: root, diagnostics: diagnostics.inDocumentOrder())
    }

    private static func diagnostic(for finding: JSONTextScanner.Finding, file: String) -> Diagnostic {
        let at = finding.location
        switch finding.kind {
        case .trailingComma(let closing):
            return Diagnostic(code: .syntax, file: file, line: at.line, column: at.column, pointer: finding.pointer,
                              message: "trailing comma before '\(closing)'", hint: "JSON allows no comma after the last item; remove it")
        case .comment:
            return Diagnostic(code: .syntax, file: file, line: at.line, column: at.column, pointer: finding.pointer,
                              message: "comments are not JSON", hint: "remove the comment, or name the file .yaml")
        case .duplicateKey(let key, let first):
            return Diagnostic(code: .duplicateKey, file: file, line: at.line, column: at.column, pointer: finding.pointer,
                              message: "duplicate key \"\(key)\" (first written at line \(first.line), column \(first.column))",
                              hint: "keep one of them")
        }
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
        case .reader(let problem, _, _, _):
            return made(nil, problem, nil)
        default:
            return made(nil, "\(error)", nil)
        }
    }
}

/// Converts Yams nodes to ``JSONNode``s, reporting what strict JSON forbids.
private struct NodeConverter {
    let file: String
    let strict: Bool
    var diagnostics: [Diagnostic] = []

    private mutating func report(_ mark: Mark?, _ pointer: String, _ message: String, hint: String? = nil) {
        diagnostics.append(Diagnostic(code: .syntax, file: file, line: mark?.line, column: mark?.column,
                                      pointer: pointer, message: message, hint: hint))
    }

    private static func location(_ mark: Mark?) -> SourceLocation? {
        mark.map { SourceLocation(line: $0.line, column: $0.column) }
    }

    mutating func convert(_ node: Node, pointer: String) -> JSONNode {
        let location = Self.location(node.mark)
        switch node {
        case .scalar(let scalar):
            return JSONNode(self.scalar(scalar, pointer: pointer), location: location)
        case .sequence(let sequence):
            if strict, sequence.style == .block {
                report(sequence.mark, pointer, "a YAML block sequence is not JSON", hint: "write the array as [ … ]")
            }
            let elements = sequence.enumerated().map { index, element in
                convert(element, pointer: JSONPointer.appending(pointer, index))
            }
            return JSONNode(.array(elements), location: location)
        case .mapping(let mapping):
            if strict, mapping.style == .block {
                report(mapping.mark, pointer, "a YAML block mapping is not JSON", hint: "write the object as { \"key\": value, … }")
            }
            var members: [JSONNode.Member] = []
            for (key, value) in mapping {
                guard case .scalar(let keyScalar) = key else {
                    report(key.mark, pointer, "object keys must be strings")
                    continue
                }
                // An unquoted key is reported but kept, so that it does not also read as missing.
                if strict, keyScalar.style != .doubleQuoted {
                    report(key.mark, pointer, "object keys must be double-quoted strings",
                           hint: "write \(JSONText.quoted(keyScalar.string))")
                }
                let memberPointer = JSONPointer.appending(pointer, keyScalar.string)
                members.append(JSONNode.Member(key: keyScalar.string, keyLocation: Self.location(key.mark),
                                               value: convert(value, pointer: memberPointer)))
            }
            return JSONNode(.object(members), location: location)
        case .alias(let alias):
            report(alias.mark, pointer, "YAML aliases are not supported in graph files")
            return JSONNode(.null, location: location)
        }
    }

    private mutating func scalar(_ scalar: Node.Scalar, pointer: String) -> JSONNode.Value {
        let text = scalar.string
        switch scalar.style {
        case .doubleQuoted:
            return .string(text)
        case .plain:
            if let value = Self.plainValue(text, strict: strict) { return value }
            if strict {
                report(scalar.mark, pointer, "unquoted string \(text); JSON strings need double quotes",
                       hint: "write \(JSONText.quoted(text))")
            }
            return .string(text)
        default:
            if strict {
                let kind = scalar.style == .singleQuoted ? "single-quoted strings are" : "YAML block scalars are"
                report(scalar.mark, pointer, "\(kind) not JSON", hint: "write \(JSONText.quoted(text))")
            }
            return .string(text)
        }
    }

    /// A plain scalar's JSON meaning: `true`, `false`, `null` or a JSON number. YAML's looser
    /// spellings (`yes`, `~`, `.inf`, `0x10`) count only outside strict mode.
    private static func plainValue(_ text: String, strict: Bool) -> JSONNode.Value? {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        if JSONNumber.isValid(text), let number = Double(text) { return .number(number, text: text) }
        guard !strict else { return nil }
        switch text {
        case "~", "Null", "NULL", "": return .null
        case "True", "TRUE", "yes", "Yes": return .bool(true)
        case "False", "FALSE", "no", "No": return .bool(false)
        default: return Double(text).map { .number($0, text: text) }
        }
    }
}
