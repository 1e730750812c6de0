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
        guard index >= 0 else { return joined(base, String(index)) }
        var digits = 1
        var rest = index
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return joined(base, extra: digits) { tail in
            var value = index
            for position in stride(from: digits - 1, through: 0, by: -1) {
                tail[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
    }

    /// `base/token`, written byte by byte into one new string: a large graph's reader makes a
    /// pointer for every app, connection and member, and `base + "/" + token` (or interpolation)
    /// cost well over a thousand instructions each.
    private static func joined(_ base: String, _ token: String) -> String {
        var token = token
        return token.withUTF8 { tokenBytes in
            joined(base, extra: tokenBytes.count) { tail in
                for position in tokenBytes.indices { tail[position] = tokenBytes[position] }
            }
        }
    }

    /// `base`, a slash and `extra` bytes that `writeTail` writes.
    private static func joined(_ base: String, extra: Int, _ writeTail: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> String {
        var base = base
        return base.withUTF8 { baseBytes in
            String(unsafeUninitializedCapacity: baseBytes.count + 1 + extra) { buffer in
                for position in baseBytes.indices { buffer[position] = baseBytes[position] }
                buffer[baseBytes.count] = UInt8(ascii: "/")
                writeTail(UnsafeMutableBufferPointer(rebasing: buffer[(baseBytes.count + 1)...]))
                return baseBytes.count + 1 + extra
            }
        }
    }
}
