/// Shell-style wildcards over port names: `*` matches any run of characters, `?` one character.
public struct PortGlob: Sendable {
    let pattern: [Character]

    public init(_ pattern: String) {
        self.pattern = Array(pattern)
    }

    public static func isGlob(_ text: String) -> Bool {
        text.contains("*") || text.contains("?")
    }

    public func matches(_ name: String) -> Bool {
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

/// How a connection between port lists pairs up: one port on either side connects to every
/// port of the other (mono to both speakers); several pair in order (a glob with `@playback`).
public enum PortPairing {
    public static func pairs<A, B>(_ sources: [A], _ destinations: [B]) -> [(A, B)] {
        if sources.count == 1 { return destinations.map { (sources[0], $0) } }
        if destinations.count == 1 { return sources.map { ($0, destinations[0]) } }
        return Array(zip(sources, destinations))
    }
}
