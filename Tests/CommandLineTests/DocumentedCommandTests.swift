import Foundation
import Testing
import TestKit

/// The commands README.md and the pages under docs/ give can be pasted: every `iaa …` command of
/// a shell block (and every `$ iaa …` line of a plain block, a prompt before a command, and every
/// inline code span of the prose that begins with `iaa `) parses with
/// the built `iaa` (`IAA_PARSE_ONLY=1`: parsed and validated, nothing run), and every `graphs/…`
/// file a page names exists and validates (a timeline against its graph).
@Suite("The documentation's commands")
struct DocumentedCommandTests {
    /// One documented `iaa` command: its arguments after `iaa`, and the page and line it is on.
    struct Command: CustomStringConvertible {
        let page: String
        let line: Int
        let arguments: [String]
        /// From an inline code span: prose names a verb (`iaa apply`) or an option with a
        /// placeholder (`iaa run --deadline PERCENT`) as often as a whole command.
        var inProse = false
        var description: String { "\(page):\(line): iaa \(arguments.joined(separator: " "))" }
    }

    /// A shell line's words and operators, quotes removed, comments and redirections dropped.
    enum Token: Equatable {
        case word(String)
        case separator
    }

    /// Splits a shell line as sh would into words and the operators between commands (`;`, `&`,
    /// `&&`, `||`, `|`, `(`, `)`, `$(`), so that `sleep 1; iaa session nav activate` and
    /// `until iaa status | grep -q x; do` each yield their `iaa` command. Not a shell: no
    /// expansion, which the parse does not need (`"$app"` stays `$app`).
    static func tokens(_ line: String) -> [Token] {
        var tokens: [Token] = [], word = "", inWord = false
        var characters = Array(line)[...]
        func finish() {
            if inWord { tokens.append(.word(word)) }
            word = ""; inWord = false
        }
        while let c = characters.popFirst() {
            switch c {
            case "'":
                inWord = true
                while let next = characters.popFirst(), next != "'" { word.append(next) }
            case "\"":
                inWord = true
                while let next = characters.popFirst(), next != "\"" {
                    if next == "\\", let escaped = characters.popFirst() { word.append(escaped) } else { word.append(next) }
                }
            case "\\":
                inWord = true
                if let escaped = characters.popFirst() { word.append(escaped) }
            case "#" where !inWord:
                characters = []
            case " ", "\t":
                finish()
            case "$" where characters.first == "(":
                finish()
                characters.removeFirst()
                tokens.append(.separator)
            case ">", "<":
                // `2>&1` is one redirection, not a `&`.
                inWord = true
                word.append(c)
                if characters.first == "&" { word.append(characters.removeFirst()) }
            case ";", "&", "|", "(", ")":
                finish()
                tokens.append(.separator)
            default:
                inWord = true
                word.append(c)
            }
        }
        finish()
        return dropRedirections(tokens)
    }

    /// The tokens without redirections (`2>/dev/null`, `> file`, `2>&1`, `<in`): they are the
    /// shell's, not the command's.
    static func dropRedirections(_ tokens: [Token]) -> [Token] {
        var kept: [Token] = [], skipNext = false
        for token in tokens {
            if skipNext { skipNext = false; continue }
            guard case .word(let word) = token,
                  let operatorEnd = word.firstIndex(where: { $0 == ">" || $0 == "<" }),
                  word[..<operatorEnd].allSatisfy(\.isNumber) else {
                kept.append(token)
                continue
            }
            // `>` or `2>` alone: the file is the next word.
            let target = word[operatorEnd...].drop { $0 == ">" || $0 == "<" }
            if target.isEmpty { skipNext = true }
        }
        return kept
    }

    /// Words that may stand before a command without being it.
    static let prefixes: Set<String> = ["until", "while", "if", "then", "do", "else", "elif", "!", "time", "exec", "nohup", "pw-jack"]

    /// The `iaa` commands of one shell line.
    static func commands(inLine line: String) -> [[String]] {
        var commands: [[String]] = [], current: [String] = []
        for token in tokens(line) + [.separator] {
            if case .word(let word) = token { current.append(word); continue }
            var words = current[...]
            current = []
            // Variable assignments and keywords before the command: `JACK_DEFAULT_SERVER=rear iaa run …`.
            while let first = words.first, prefixes.contains(first) || isAssignment(first) { words.removeFirst() }
            if words.starts(with: ["swift", "run", "iaa"]) { words = words.dropFirst(2) }
            guard words.first == "iaa" else { continue }
            commands.append(Array(words.dropFirst()))
        }
        return commands
    }

    static func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
        return word[..<equals].allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }

    /// Every `iaa` command of a page: the lines of its `sh` blocks (a `\` at a line's end joins
    /// the next), and the `$ ` lines of its blocks with no language.
    static func commands(in page: String) -> [Command] {
        var found: [Command] = [], language: String? = nil, pending = "", pendingLine = 0
        for (index, line) in Markdown.page(page).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                language = language == nil ? String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces) : nil
                pending = ""
                continue
            }
            guard let language else { continue }
            var text = String(line)
            if language.isEmpty {
                guard text.hasPrefix("$ ") || !pending.isEmpty else { continue }
            } else if language != "sh" {
                continue
            }
            if text.hasPrefix("$ ") { text.removeFirst(2) }
            if pending.isEmpty { pendingLine = index + 1 }
            if text.hasSuffix("\\") {
                pending += text.dropLast() + " "
                continue
            }
            let whole = pending + text
            pending = ""
            found += commands(inLine: whole).map { Command(page: page, line: pendingLine, arguments: $0) }
        }
        return found
    }

    /// The `iaa …` commands of a page's prose: its inline code spans that begin with `iaa ` (a span
    /// may run over a line break, as `iaa session -n rear\n  rearNav activate` does).
    static func inlineCommands(in page: String, text: String? = nil) -> [Command] {
        var found: [Command] = [], paragraph: [Substring] = [], firstLine = 0, inFence = false
        func finish() {
            let text = paragraph.joined(separator: "\n")
            paragraph = []
            for (index, piece) in text.split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
                // A synopsis (`iaa nodes GRAPH [--type T]`, `--lang c|swift`) is notation, not a command.
                guard piece.hasPrefix("iaa "), !piece.contains("["), piece.firstMatch(of: /\w\|\w/) == nil else { continue }
                // The line the span starts on: the paragraph's first, plus the line breaks before it.
                let line = firstLine + text[..<piece.startIndex].filter { $0 == "\n" }.count
                let span = piece.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                found += commands(inLine: span).map { Command(page: page, line: line, arguments: $0, inProse: true) }
            }
        }
        for (index, line) in (text ?? Markdown.page(page)).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { finish(); inFence.toggle(); continue }
            guard !inFence else { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { finish(); continue }
            if paragraph.isEmpty { firstLine = index + 1 }
            paragraph.append(line)
        }
        finish()
        return found
    }

    /// The `graphs/…` files a page names anywhere (text, tables, code), as package-relative paths.
    static func graphPaths(in page: String) -> [(path: String, line: Int)] {
        var paths: [(String, Int)] = []
        let pattern = try! NSRegularExpression(pattern: #"(?<![\w./~-])graphs/[\w.-]+\.json"#)
        for (index, line) in Markdown.page(page).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = String(line)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                paths.append((String(text[Range(match.range, in: text)!]), index + 1))
            }
        }
        return paths
    }

    @Test("the shell-line reader finds each iaa command as sh would run it")
    func readsShellLines() {
        #expect(Self.commands(inLine: "sleep 1; iaa session nav activate   # …and after 1 s") == [["session", "nav", "activate"]])
        #expect(Self.commands(inLine: "until iaa status -n rear 2>/dev/null | grep -q \"running (locked\"; do sleep 0.2; done")
                == [["status", "-n", "rear"]])
        #expect(Self.commands(inLine: "JACK_DEFAULT_SERVER=rear-unit iaa run graphs/link-rear.json 2>rear.log &")
                == [["run", "graphs/link-rear.json"]])
        #expect(Self.commands(inLine: "swift run iaa run graphs/demo.json > out 2>&1 &") == [["run", "graphs/demo.json"]])
        #expect(Self.commands(inLine: "pid=$(iaa status --json | jq .pid)") == [["status", "--json"]])
        #expect(Self.commands(inLine: "jack_lsp -c iaa; echo 'iaa run x'") == [])
        #expect(Self.commands(inLine: "iaa set tone frequency '440 Hz'") == [["set", "tone", "frequency", "440 Hz"]])
    }

    @Test("inline code: the command in a span, over a line break, and no synopsis")
    func readsInlineSpans() {
        let page = "a session action (`iaa session -n rear\n  rearNav activate`, or `iaa status`'s tree);\n`iaa nodes GRAPH [--json]`, `iaa plugin new N --lang c|swift`, `jack_lsp -c iaa`\n\n```sh\niaa run x.json\n```\n"
        let found = Self.inlineCommands(in: "docs/page.md", text: page)
        #expect(found.map(\.arguments) == [["session", "-n", "rear", "rearNav", "activate"], ["status"]])
        #expect(found.map(\.line) == [1, 2] && found.allSatisfy(\.inProse))
    }

    @Test("the parse-only run refuses an option before the verb it belongs to")
    func parseOnlyRefusesMisplacedOption() throws {
        let misplaced = try IAACommand.run(["-n", "rear", "session", "rearNav", "activate"], environment: ["IAA_PARSE_ONLY": "1"])
        #expect(misplaced.status != 0 && misplaced.stderr.contains("Unknown option '-n'"), "\(misplaced.stderr)")
        let placed = try IAACommand.run(["session", "-n", "rear", "rearNav", "activate"], environment: ["IAA_PARSE_ONLY": "1"])
        #expect(placed.status == 0 && placed.stdout == "session\n", "\(placed.stdout)\(placed.stderr)")
    }

    @Test("iaa run --help says what docs/state.md says: a plain run resumes the kept state, --fresh and --no-state do not")
    func runHelpSaysItResumes() throws {
        let help = try IAACommand.run(["run", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("A plain run resumes the state kept for its JACK client and graph file"), "\(help.stdout)")
        #expect(text.contains("--fresh starts from the file") && text.contains("--no-state keeps nothing"), "\(help.stdout)")
    }

    @Test("every iaa command in README's and docs/' shell blocks and inline code parses with the real command line")
    func commandsParse() throws {
        let commands = Markdown.pages.flatMap { Self.commands(in: $0) + Self.inlineCommands(in: $0) }
        #expect(commands.count >= 100, "only \(commands.count) documented iaa commands found")
        #expect(Set(commands.map(\.page)).count >= 10, "iaa commands found on \(Set(commands.map(\.page)).sorted())")
        var refused: [String] = []
        for command in commands {
            let result = try IAACommand.run(command.arguments, environment: ["IAA_PARSE_ONLY": "1"])
            guard result.status != 0 else { continue }
            // In prose, what is left out (a verb's arguments, an option's value) is the reader's to
            // give; what no command takes (an option before its verb, a verb that does not exist,
            // an argument too many) is a mistake whatever they give.
            let mistake = ["Unknown option", "Unexpected argument", "unexpected arguments"].contains { result.stderr.contains($0) }
            if !command.inProse || mistake { refused.append("\(command)\n    \(result.stderr.split(separator: "\n").first ?? "")") }
        }
        #expect(refused.isEmpty, "documented commands iaa refuses:\n\(refused.joined(separator: "\n"))")
    }

    @Test("every graphs/… file README and docs/ name exists and validates, a timeline against its graph")
    func namedGraphsValidate() throws {
        let named = Markdown.pages.flatMap { page in Self.graphPaths(in: page).map { (page: page, path: $0.path, line: $0.line) } }
        #expect(Set(named.map(\.path)).count >= 8, "only \(Set(named.map(\.path)).sorted()) named")
        var problems: [String] = [], validated: [String: String?] = [:]
        for (page, path, line) in named {
            guard FileManager.default.fileExists(atPath: Repository.path(path)) else {
                problems.append("\(page):\(line): \(path): no such file in the repository")
                continue
            }
            // A timeline validates against its graph (NAME.timeline.json drives NAME.json); the schema
            // and grants files are not graphs: they exist, which is what a page needs.
            let arguments: [String]
            if Repository.timelineFiles(in: "graphs").contains(path) {
                arguments = ["validate", Repository.path(path.replacing(".timeline.json", with: ".json")), "--timeline", Repository.path(path)]
            } else if Repository.graphFiles(in: "graphs").contains(path) {
                arguments = ["validate", Repository.path(path)]
            } else {
                continue
            }
            if validated[path] == nil {
                let result = try IAACommand.run(arguments)
                validated[path] = result.status == 0 ? .some(nil) : .some(result.stderr)
            }
            if let failure = validated[path] ?? nil { problems.append("\(page):\(line): \(path) does not validate:\n\(failure)") }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
