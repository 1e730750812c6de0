/// Shell-style wildcards over port names: `*` matches any run of characters, `?` one character.
struct PortGlob {
    let pattern: [Character]

    init(_ pattern: String) {
        self.pattern = Array(pattern)
    }

    static func isGlob(_ text: String) -> Bool {
        text.contains("*") || text.contains("?")
    }

    func matches(_ name: String) -> Bool {
        let text = Array(name)
        var p = 0, t = 0
        var star: Int?, resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
