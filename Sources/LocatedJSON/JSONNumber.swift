/// The JSON number grammar of RFC 8259, which is stricter than `Double.init` (no `+1`, `.5`,
/// `01`, `inf` or hex).
public enum JSONNumber {
    public static func isValid(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            var count = 0
            while let first = scalars.first, ("0"..."9").contains(first) {
                scalars.removeFirst()
                count += 1
            }
            return count
        }
        if scalars.first == "-" { scalars.removeFirst() }
        if scalars.first == "0" {
            scalars.removeFirst()
        } else if digits() == 0 {
            return false
        }
        if scalars.first == "." {
            scalars.removeFirst()
            if digits() == 0 { return false }
        }
        if scalars.first == "e" || scalars.first == "E" {
            scalars.removeFirst()
            if scalars.first == "+" || scalars.first == "-" { scalars.removeFirst() }
            if digits() == 0 { return false }
        }
        return scalars.isEmpty
    }
}
