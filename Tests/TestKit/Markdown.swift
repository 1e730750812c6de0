/// README.md's code blocks, for the tests that run or validate them as a reader would copy them.
public enum Readme {
    public static let text = Repository.read("README.md") ?? ""

    /// The fenced blocks whose language is one of `languages` (`json` also takes `jsonc` when both are
    /// given), in order, without their fences.
    public static func blocks(_ languages: Set<String>, in text: String = text) -> [String] {
        var blocks: [String] = [], current: [Substring]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let open = current {
                if line.hasPrefix("```") { blocks.append(open.joined(separator: "\n")); current = nil } else { current = open + [line] }
            } else if line.hasPrefix("```"), languages.contains(String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)) {
                current = []
            }
        }
        return blocks
    }

    /// The text from the heading `start` up to the heading `end` (or the end of the file).
    public static func section(from start: String, to end: String?, in text: String = text) -> String {
        guard let from = text.range(of: start) else { return "" }
        let until = end.flatMap { text.range(of: $0, range: from.upperBound..<text.endIndex)?.lowerBound } ?? text.endIndex
        return String(text[from.lowerBound..<until])
    }
}
