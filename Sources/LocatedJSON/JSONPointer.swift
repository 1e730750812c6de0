/// RFC 6901 pointers.
public enum JSONPointer {
    /// `base` extended by one reference token, with `~` and `/` escaped.
    public static func appending(_ base: String, _ token: String) -> String {
        // Keys almost never hold '~' or '/'; `replacing` searched every key twice and was a
        // quarter of loading a large graph.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return base + "/" + token
        }
        return base + "/" + token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    public static func appending(_ base: String, _ index: Int) -> String {
        base + "/\(index)"
    }
}
