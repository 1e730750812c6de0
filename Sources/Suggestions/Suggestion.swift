/// "Did you mean" suggestions by edit distance, for misspelt keys, values, ids, ports and plugins.
public enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a plausible typo.
    ///
    /// Close enough means a case-insensitive match, or an edit distance of at most a third of the
    /// word's length (at least 1, at most 3); ties go to the earlier candidate so output is stable.
    /// Candidates that differ only in their digits are not suggested.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        if let match = candidates.first(where: { $0.lowercased() == lowered }) { return match }
        let limit = min(3, max(1, word.count / 3))
        var best: (candidate: String, distance: Int)?
        let skeleton = withoutDigits(lowered)
        let length = lowered.unicodeScalars.count
        for candidate in candidates {
            // The distance is at least the difference in length; skipping those keeps a megabyte
            // word from costing a megabyte times each candidate.
            guard abs(candidate.lowercased().unicodeScalars.count - length) <= limit else { continue }
            // `in_9` for `in_1` is a numbering question, not a typo; the listing answers it better.
            if withoutDigits(candidate.lowercased()) == skeleton { continue }
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    private static func withoutDigits(_ text: String) -> String {
        String(text.unicodeScalars.filter { !("0"..."9").contains($0) })
    }

    /// `did you mean "x"?`, or nil when nothing is close.
    public static func hint(for word: String, in candidates: [String]) -> String? {
        closest(to: word, in: candidates).map { "did you mean \"\($0)\"?" }
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
    public static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let a = Array(lhs.unicodeScalars), b = Array(rhs.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
