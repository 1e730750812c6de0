/// RFC 6901 pointers.
public enum JSONPointer {
    /// `base` extended by one reference token, with `~` and `/` escaped.
    public static func appending(_ base: String, _ token: String) -> String {
        // Keys almost never hold '~' or '/'; `replacing` searched every key twice and was a
        // quarter of loading a large graph.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return joined(base, token)
        }
        return base + "/" + token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    public static func appending(_ base: String, _ index: Int) -> String {
        joined(base, String(index))
    }

    /// `base/token` in one allocation: `base + "/" + token` made an intermediate string, and
    /// a large graph's reader makes a pointer for every app, connection and member.
    private static func joined(_ base: String, _ token: String) -> String {
        var result = ""
        result.reserveCapacity(base.utf8.count + 1 + token.utf8.count)
        result.append(base)
        result.append("/")
        result.append(token)
        return result
    }
}
