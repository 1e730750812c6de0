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
        var tooDeep = false
        // YAML reads a pair outside an object as a mapping, so the tree would not be the one the
        // author wrote, and every error found in it would mislead: report only those. When YAML
        // fails anyway (a missing ']' also puts a pair in an array), its message says more.
        var pairs: [Diagnostic] = []
        for finding in JSONTextScanner.scan(text) {
            if case .tooDeep = finding.kind {
                tooDeep = true
            } else if !strict {
                continue
            }
            if case .duplicateKey = finding.kind { duplicatesFound = true }
            if case .pairOutsideObject = finding.kind {
                pairs.append(diagnostic(for: finding, file: file))
                continue
            }
            diagnostics.append(diagnostic(for: finding, file: file))
        }
        // The parser would recurse once per level, and run out of stack.
        if tooDeep { return Result(diagnostics: diagnostics.inDocumentOrder()) }
        let shield = strict ? JSONStringShield(text) : nil
        let composed: Node?
        do {
            composed = try Yams.compose(yaml: strict ? yamlSafeWhitespace(shield?.text ?? text) : text)
        } catch let error as YamlError {
            // The scanner already located every duplicate key more precisely than Yams does.
            if case .duplicatedKeysInMapping = error, duplicatesFound { return Result(diagnostics: diagnostics) }
            diagnostics.append(syntaxDiagnostic(error, file: file))
            return Result(diagnostics: diagnostics.inDocumentOrder())
        } catch {
            diagnostics.append(Diagnostic(code: .syntax, file: file, message: "\(error)"))
            return Result(diagnostics: diagnostics)
        }
        if !pairs.isEmpty { return Result(diagnostics: (diagnostics + pairs).inDocumentOrder()) }
        guard let composed else {
            diagnostics.append(Diagnostic(code: .syntax, file: file, line: 1, column: 1,
                                          message: "the file is empty", hint: emptyHint))
            return Result(diagnostics: diagnostics)
        }
        var converter = NodeConverter(file: file, strict: strict, shield: shield)
        let root = converter.convert(composed, pointer: "")
        diagnostics += converter.diagnostics
        return Result(root: root, diagnostics: diagnostics.inDocumentOrder())
    }

    /// JSON allows tabs wherever it allows spaces; YAML does not (a tab cannot indent), so Yams
    /// rejected valid JSON such as "\t{}" (found by the fuzz test). A raw tab inside a string is
    /// already an error the scanner reported, so turning every tab into one space changes no
    /// accepted document and keeps every column.
    static func yamlSafeWhitespace(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\t")) else { return text }
        return String(decoding: text.utf8.map { $0 == UInt8(ascii: "\t") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
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
        case .pairOutsideObject(let inArray):
            return Diagnostic(code: .syntax, file: file, line: at.line, column: at.column, pointer: finding.pointer,
                              message: inArray ? "':' inside an array: JSON arrays hold values, not key: value pairs"
                                               : "':' outside any object: a JSON document is one value",
                              hint: inArray ? "wrap the pair in braces: [{\"key\": value}]" : "wrap the members in { }")
        case .duplicateKey(let key, let first):
            return Diagnostic(code: .duplicateKey, file: file, line: at.line, column: at.column, pointer: finding.pointer,
                              message: "duplicate key \"\(key)\" (first written at line \(first.line), column \(first.column))",
                              hint: "keep one of them")
        case .tooDeep:
            return Diagnostic(code: .syntax, file: file, line: at.line, column: at.column, pointer: finding.pointer,
                              message: "arrays and objects nest deeper than \(JSONTextScanner.maximumDepth) levels",
                              hint: "a graph nests a few levels; check the brackets")
        }
    }

    /// The line and column (in Unicode scalars; lines end at LF, CR or CRLF) of the `offset`th
    /// character of `text`.
    static func location(ofCharacter offset: Int, in text: String) -> SourceLocation? {
        guard offset >= 0, let end = text.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex) else {
            return nil
        }
        var line = 1, column = 1, previous: Unicode.Scalar?
        for scalar in text.unicodeScalars[..<end] {
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
        return SourceLocation(line: line, column: column)
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

/// Converts Yams nodes to ``JSONNode``s, reporting what strict JSON forbids.
private struct NodeConverter {
    let file: String
    let strict: Bool
    /// How strict JSON text was rewritten for libyaml, to undo in keys and strings.
    let shield: JSONStringShield?
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
                let (name, written) = shield?.restore(key: keyScalar.string) ?? (keyScalar.string, nil)
                let memberPointer = JSONPointer.appending(pointer, name)
                members.append(JSONNode.Member(key: name, keyLocation: written ?? Self.location(key.mark),
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
            return .string(shield?.restore(text) ?? text)
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

/// Rewrites strict JSON text so that libyaml reads its strings as JSON does, and undoes the
/// rewriting in the decoded strings.
///
/// libyaml refuses some scalars that JSON strings may hold raw (DEL, the C1 controls, U+FFFE and
/// U+FFFF), reads U+0085, U+2028 and U+2029 as line breaks (folding them, or failing inside a
/// key), and takes no key over 1024 characters. Inside strings, such scalars become private-use
/// placeholders, and a long key becomes a short placeholder key preceded by spaces, so that every
/// other value keeps its line and column; ``restore(_:)`` and ``keyLocation(_:)`` give back what
/// was written.
struct JSONStringShield {
    /// The text for libyaml.
    let text: String
    private var scalars: [Unicode.Scalar: Unicode.Scalar] = [:]
    private var keys: [String: (key: String, location: SourceLocation)] = [:]

    /// Keys longer than this many scalars (quotes included) are replaced.
    static let longKey = 512

    static func needsShield(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7F...0x9F, 0x2028, 0x2029, 0xFFFE, 0xFFFF: true
        default: false
        }
    }

    init(_ original: String) {
        var utf8 = original
        guard utf8.withUTF8(Self.mayNeedShield) else {
            text = original
            return
        }
        let source = Array(original.unicodeScalars)
        var used = Set(source.filter { (0xE000...0xF8FF).contains($0.value) })
        var nextPlaceholder: UInt32 = 0xE000
        func placeholder() -> Unicode.Scalar? {
            while nextPlaceholder <= 0xF8FF {
                let candidate = Unicode.Scalar(nextPlaceholder)!
                nextPlaceholder += 1
                if used.insert(candidate).inserted { return candidate }
            }
            return nil
        }
        var byOriginal: [Unicode.Scalar: Unicode.Scalar] = [:]
        let keyMark = placeholder()
        var output = String.UnicodeScalarView()
        var position = 0, line = 1, column = 1
        func copy(_ scalar: Unicode.Scalar, next: Unicode.Scalar?) {
            output.append(scalar)
            if scalar == "\n" || (scalar == "\r" && next != "\n") {
                line += 1
                column = 1
            } else if scalar != "\r" {
                column += 1
            }
        }
        while position < source.count {
            guard source[position] == "\"" else {
                copy(source[position], next: position + 1 < source.count ? source[position + 1] : nil)
                position += 1
                continue
            }
            // A string: find its end, then copy it, shielded.
            var end = position + 1
            while end < source.count, source[end] != "\"", source[end] != "\n" {
                end += source[end] == "\\" ? 2 : 1
            }
            end = min(end, source.count - 1)
            var colon = end + 1
            while colon < source.count, [" ", "\t", "\n", "\r"].contains(source[colon]) { colon += 1 }
            let isKey = colon < source.count && source[colon] == ":" && source[end] == "\"" && end > position
            if isKey, end + 1 - position > Self.longKey, let keyMark {
                let name = String(keys.count)
                var key = String.UnicodeScalarView()
                var index = position + 1
                while index < end {
                    // The key as libyaml would decode it: the common escapes, enough for messages.
                    if source[index] == "\\", index + 1 < end {
                        key.append(JSONTextScanner.unescaped(source[index + 1]))
                        index += 2
                    } else {
                        key.append(source[index])
                        index += 1
                    }
                }
                keys[String(keyMark) + name] = (String(key), SourceLocation(line: line, column: column))
                let replacement = "\"" + String(keyMark) + name + "\""
                let padding = (end + 1 - position) - replacement.unicodeScalars.count
                output.append(contentsOf: String(repeating: " ", count: padding).unicodeScalars)
                output.append(contentsOf: replacement.unicodeScalars)
                column += end + 1 - position
            } else {
                for index in position...end {
                    var scalar = source[index]
                    if index > position, index < end, Self.needsShield(scalar) {
                        if let known = byOriginal[scalar] {
                            scalar = known
                        } else if let fresh = placeholder() {
                            byOriginal[scalar] = fresh
                            scalars[fresh] = scalar
                            scalar = fresh
                        }
                    }
                    copy(scalar, next: index + 1 < source.count ? source[index + 1] : nil)
                }
            }
            position = end + 1
            // libyaml wants a key's ':' on the key's line, where JSON allows line breaks before
            // it: the ':' moves up to the key, and a space takes its place.
            if isKey, source[position..<colon].contains(where: { $0 == "\n" || $0 == "\r" }) {
                output.append(":")
                for index in position..<colon { copy(source[index], next: source[index + 1]) }
                copy(" ", next: colon + 1 < source.count ? source[colon + 1] : nil)
                position = colon + 1
            }
        }
        text = String(output)
    }

    /// Whether the UTF-8 text holds anything to rewrite, or may: a scalar to shield, a string
    /// long enough to be a long key, or a line break between a string and a ':'. A byte loop,
    /// so that the common file costs little.
    private static func mayNeedShield(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var lastQuote = -1, afterQuote = false, breakAfterQuote = false
        for index in bytes.indices {
            let byte = bytes[index]
            switch byte {
            case 0x7F:
                return true
            case 0xC2:
                if index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
            case 0xE2:
                if index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 { return true }
            case 0xEF:
                if index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] == 0xBE || bytes[index + 2] == 0xBF { return true }
            case UInt8(ascii: "\""):
                if index - lastQuote > longKey { return true }
                lastQuote = index
                afterQuote = true
                breakAfterQuote = false
                continue
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                breakAfterQuote = afterQuote
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: ":"):
                if breakAfterQuote { return true }
            default:
                break
            }
            afterQuote = false
            breakAfterQuote = false
        }
        return false
    }

    /// A decoded string with the placeholders of shielded scalars turned back.
    func restore(_ decoded: String) -> String {
        guard !scalars.isEmpty else { return decoded }
        var output = String.UnicodeScalarView()
        for scalar in decoded.unicodeScalars { output.append(scalars[scalar] ?? scalar) }
        return String(output)
    }

    /// A decoded key as written, with where it was written when it was a replaced long key.
    func restore(key decoded: String) -> (key: String, location: SourceLocation?) {
        if let long = keys[decoded] { return (long.key, long.location) }
        return (restore(decoded), nil)
    }
}
