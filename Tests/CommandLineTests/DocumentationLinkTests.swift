import Foundation
import Testing
import TestKit

/// README.md and the pages under docs/ link each other, the protocol reference and the sources by
/// relative paths: every such link names a file of the repository, every `#anchor` a heading of
/// the Markdown page it points into, and none leaves the repository.
@Suite("The documentation's links")
struct DocumentationLinkTests {
    /// A broken link, as `PAGE:LINE: TARGET: why`; none when the target is a web address.
    static func problem(in page: String, line: Int, target: String) -> String? {
        if target.contains("://") || target.hasPrefix("mailto:") { return nil }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let file = String(parts[0]), anchor = parts.count > 1 ? String(parts[1]) : nil
        let base = URL(fileURLWithPath: Repository.path(page)).deletingLastPathComponent()
        let resolved = file.isEmpty ? URL(fileURLWithPath: Repository.path(page)) : base.appendingPathComponent(file).standardizedFileURL
        let place = "\(page):\(line): \(target)"
        guard resolved.path.hasPrefix(Repository.root + "/") else { return "\(place): outside the repository" }
        guard FileManager.default.fileExists(atPath: resolved.path) else { return "\(place): no such file" }
        if let anchor, resolved.pathExtension == "md" {
            let text = (try? String(contentsOf: resolved, encoding: .utf8)) ?? ""
            if !Markdown.anchors(in: text).contains(anchor) { return "\(place): no heading makes #\(anchor)" }
        }
        return nil
    }

    @Test("every relative link and anchor in README.md and docs/ resolves inside the repository")
    func linksResolve() {
        var checked = 0
        var problems: [String] = []
        for page in Markdown.pages {
            for link in Markdown.links(in: Markdown.page(page)) {
                checked += 1
                if let problem = Self.problem(in: page, line: link.line, target: link.target) { problems.append(problem) }
            }
        }
        #expect(checked >= 50, "only \(checked) links found")
        #expect(problems.isEmpty, "broken links:\n\(problems.joined(separator: "\n"))")
    }

    @Test("README links every page under docs/")
    func readmeLinksEveryPage() {
        let readme = Markdown.page("README.md")
        let unlinked = Markdown.pages.dropFirst().filter { !readme.contains("](\($0))") }
        #expect(unlinked.isEmpty, "README does not link: \(unlinked)")
    }

    @Test("the anchors GitHub makes from headings")
    func anchors() {
        let text = "# iaa — inter-app audio routing on JACK\n## 4. The session library\n### The audio thread's rules\n```\n# not a heading\n```\n## Under a session manager (NSM)\n## Notes\n## Notes\n"
        #expect(Markdown.anchors(in: text) == ["iaa--inter-app-audio-routing-on-jack", "4-the-session-library",
                                               "the-audio-threads-rules", "under-a-session-manager-nsm", "notes", "notes-1"])
    }
}
