import Foundation
import Testing
import TestKit

/// docs/session-policy.md states every rule with the tests that check it: each rule cites at least
/// one test, and every cited name is a test (or row) that exists, so the document cannot drift
/// from the code. README links to it and to nothing outside the repository.
@Suite("The session-policy document")
struct SessionPolicyDocumentTests {
    static let root = URL(fileURLWithPath: Repository.root)

    /// Every Swift file under Tests/, as one text to search for cited names.
    static let testSources: String = {
        let tests = root.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".swift") && !$0.hasSuffix("SessionPolicyDocumentTests.swift") }
            .compactMap { try? String(contentsOf: tests.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
    }()

    /// The rule rows of the document: (id, the names its last column cites).
    static let rules: [(id: String, cited: [String])] = {
        let text = (try? String(contentsOf: root.appendingPathComponent("docs/session-policy.md"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line -> (String, [String])? in
            guard line.hasPrefix("| **") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3 else { return nil }
            let id = cells[1].replacingOccurrences(of: "*", with: "")
            let citations = cells[cells.count - 2].split(separator: "`", omittingEmptySubsequences: false)
            let cited = stride(from: 1, to: citations.count, by: 2).map { String(citations[$0]) }
            return (id, cited)
        }
    }()

    @Test("the document states the rule families, each rule with an id")
    func documentHasRules() {
        let families = Set(Self.rules.map { String($0.id.prefix(1)) })
        #expect(families == ["C", "O", "A", "I", "B", "H", "R", "X"], "\(families)")
        #expect(Set(Self.rules.map(\.id)).count == Self.rules.count, "rule ids repeat")
    }

    @Test("every rule cites at least one test, and every cited test exists")
    func everyRuleIsTested() {
        let uncited = Self.rules.filter(\.cited.isEmpty).map(\.id)
        #expect(uncited.isEmpty, "rules citing no test: \(uncited)")
        let sources = Self.testSources
        let missing = Self.rules.flatMap { rule in rule.cited.filter { !sources.contains($0) }.map { "\(rule.id): \($0)" } }
        #expect(missing.isEmpty, "cited names no test under Tests/ has:\n\(missing.joined(separator: "\n"))")
    }

    @Test("README links the policy document and nothing outside the repository")
    func readmeLinksTheDocument() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let linksDocument = readme.contains("docs/session-policy.md")
        let outside = ["../shared", "SESSION-POLICY.md", "STYLE.md"].filter { readme.contains($0) }
        #expect(linksDocument)
        #expect(outside.isEmpty, "README names files outside the repository: \(outside)")
    }
}
