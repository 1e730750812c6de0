/// The JSON number grammar of RFC 8259, which is stricter than `Double.init` (no `+1`, `.5`,
/// `01`, `inf` or hex).
public enum JSONNumber {
    public static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isValid($0) }
    }

    /// The same check on UTF-8 bytes: the grammar is ASCII, and every number of every file
    /// comes through here.
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        do {
            var index = 0
            func skip(_ byte: UInt8) -> Bool {
                guard index < bytes.count, bytes[index] == byte else { return false }
                index += 1
                return true
            }
            func digits() -> Int {
                let start = index
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
                return index - start
            }
            _ = skip(UInt8(ascii: "-"))
            if !skip(UInt8(ascii: "0")), digits() == 0 { return false }
            if skip(UInt8(ascii: ".")), digits() == 0 { return false }
            if skip(UInt8(ascii: "e")) || skip(UInt8(ascii: "E")) {
                if !skip(UInt8(ascii: "+")) { _ = skip(UInt8(ascii: "-")) }
                if digits() == 0 { return false }
            }
            return index == bytes.count
        }
    }
}
