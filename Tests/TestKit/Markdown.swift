import Foundation

/// The repository's Markdown pages (README.md and the pages under docs/) and their code blocks, for
/// the tests that run or validate them as a reader would copy them.
public enum Markdown {
    /// The text of a page by its package-relative path (`README.md`, `docs/programs.md`), empty
    /// when it cannot be read.
    public static func page(_ path: String) -> String {
        Repository.read(path) ?? ""
    }

    /// README.md, then every page under docs/, sorted, as package-relative paths.
    public static var pages: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Repository.path("docs"))) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The fenced blocks whose language is one of `languages` (`json` also takes `jsonc` when both are
    /// given), in order, without their fences.
    public static func blocks(_ languages: Set<String>, in text: String) -> [String] {
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

    /// The text from the heading `start` up to the heading `end` (or the end of the text).
    public static func section(from start: String, to end: String?, in text: String) -> String {
        guard let from = text.range(of: start) else { return "" }
        let until = end.flatMap { text.range(of: $0, range: from.upperBound..<text.endIndex)?.lowerBound } ?? text.endIndex
        return String(text[from.lowerBound..<until])
    }

    /// The heading anchors of a page as GitHub makes them: lower case, punctuation dropped, spaces
    /// as hyphens, a repeated heading numbered (`-1`, `-2`); headings inside code blocks are not
    /// headings.
    public static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = [], seen: [String: Int] = [:], inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, line.hasPrefix("#") else { continue }
            let hashes = line.prefix { $0 == "#" }
            guard hashes.count <= 6, line.dropFirst(hashes.count).first == " " else { continue }
            let title = line.dropFirst(hashes.count + 1).trimmingCharacters(in: .whitespaces).lowercased()
            let slug = String(title.unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return Character(scalar) }
                return nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The targets of the inline links of a text outside code blocks (`[text](target)`), with the
    /// line each is on.
    public static func links(in text: String) -> [(line: Int, target: String)] {
        var links: [(Int, String)] = [], inFence = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence else { continue }
            var rest = line[...]
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(where: { $0 == ")" || $0 == " " }), after[close] == ")" else {
                    rest = after
                    continue
                }
                links.append((index + 1, String(after[..<close])))
                rest = after[close...]
            }
        }
        return links
    }
}
