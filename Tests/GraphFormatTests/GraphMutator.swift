/// Makes bad graph and timeline files from good ones: a seeded, deterministic mutator for the
/// fuzz tests.
///
/// Each input is one seed file with one to three mutations, some on the JSON tree (dropped keys,
/// wrong types, dangling ports, cycles, duplicate ids and keys, odd numbers, unknown plugins,
/// huge strings, deep nesting, long arrays) and some on the text (truncation, byte flips,
/// invalid UTF-8, control characters, BOMs, trailing commas).
struct GraphMutator {
    /// What one input is made of: its text (lossily decoded when a mutation broke the UTF-8), its
    /// bytes, and what was done to it, for the failure message.
    struct Input {
        var text: String
        var bytes: [UInt8]
        var mutations: [String]
        /// Whether a mutation made it big (a megabyte string, deep nesting, a long array).
        var heavy: Bool
    }

    /// Percent chance that a mutation is one of the heavy ones; an input gets one at most.
    var heavyPercent: Int

    /// One mutated input from `seed`, the text of a well-formed JSON file.
    func mutate(_ seed: FuzzJSON, random: inout FuzzRandom) -> Input {
        var tree = seed
        var mutations: [String] = []
        var heavy = false
        let count = random.int(in: 1...3)
        for _ in 0..<count where random.chance(75) {
            if !heavy, random.chance(heavyPercent) {
                heavy = true
                mutations.append(mutateHeavily(&tree, random: &random))
            } else {
                mutations.append(mutateTree(&tree, random: &random))
            }
        }
        var style = FuzzJSON.Style(pretty: random.chance(70))
        if random.chance(8) {
            style.trailingCommaPercent = random.int(in: 5...50)
            mutations.append("trailing commas")
        }
        var bytes = Array(tree.text(style: style, random: &random).utf8)
        for _ in 0..<(random.chance(40) ? random.int(in: 1...2) : 0) {
            mutations.append(mutateText(&bytes, random: &random))
        }
        return Input(text: String(decoding: bytes, as: UTF8.self), bytes: bytes, mutations: mutations, heavy: heavy)
    }

    // MARK: - Tree mutations

    private func randomPath(in tree: FuzzJSON, random: inout FuzzRandom,
                            where predicate: (FuzzJSON) -> Bool = { _ in true }) -> [Int]? {
        var matching: [[Int]] = [], root: [Int] = []
        tree.paths(prefix: &root, where: predicate, into: &matching)
        return matching.isEmpty ? nil : random.pick(matching)
    }

    private static func isObject(_ value: FuzzJSON) -> Bool {
        if case .object(let members) = value { !members.isEmpty } else { false }
    }

    private static func isString(_ value: FuzzJSON) -> Bool {
        if case .string = value { true } else { false }
    }

    private static func isArray(_ value: FuzzJSON) -> Bool {
        if case .array(let elements) = value { !elements.isEmpty } else { false }
    }

    /// Values that stand in for any other, one of each JSON type and some that are barely JSON.
    static let replacements: [FuzzJSON] = [
        .null, .bool(true), .bool(false), .number("0"), .number("-1"), .number("1.5"), .number("2147483648"),
        .string(""), .string("x"), .string("-6dB"), .string("in_1"), .array([]), .array([.null]),
        .array([.string("a"), .number("1")]), .object([]), .object([(key: "x", value: .number("1"))]),
    ]

    /// Numbers (some not JSON) for gains, parameters and times.
    static let numbers = [
        "NaN", "-NaN", "Infinity", "-Infinity", "inf", ".inf", "1e309", "-1e309", "1e308", "4.9e-324", "1e-400",
        "-0", "0", "99999999999999999999999999999", "-1", "1E+2", "0x10", "+1", ".5", "01", "1.", "1e", "-",
        "18446744073709551616", "9223372036854775807", "-9223372036854775809", "2147483647", "65",
    ]

    /// Strings for gains and parameters that look like values.
    static let valueStrings = [
        "NaN dB", "inf", "Infinity", "1e309", "1e309 dB", "-1e309dB", "+1000 dB", "-inf dB", "100000%", "nan%",
        "-6dB", "dB", "%", "", " ", "6 dBFS", "0x10", "1e-400 dB", "9999999999999999999999 dB", "-0 dB",
    ]

    /// Plugin names that no registry holds.
    static let plugins = [
        "builtin:nope", "builtin:", "builtin:gain ", "BUILTIN:GAIN", "builtin:gain\u{0}", "plugin:",
        "plugin:/nonexistent/x.so", "plugin:../../etc/passwd", "lv2:http://example.com", "", ":", "builtin:gian",
    ]

    private func mutateTree(_ tree: inout FuzzJSON, random: inout FuzzRandom) -> String {
        switch random.below(13) {
        case 0:
            guard let path = randomPath(in: tree, random: &random, where: Self.isObject) else { return "none" }
            var dropped = ""
            tree = tree.replacing(at: path[...]) { value in
                guard case .object(var members) = value else { return value }
                let index = random.below(members.count)
                dropped = members[index].key
                members.remove(at: index)
                return .object(members)
            }
            return "drop key \(dropped) at \(path)"
        case 1:
            guard let path = randomPath(in: tree, random: &random) else { return "none" }
            let replacement = random.pick(Self.replacements)
            tree = tree.replacing(at: path[...]) { _ in replacement }
            return "change type at \(path)"
        case 2:
            return dangle(&tree, random: &random)
        case 3:
            return addCycle(&tree, random: &random)
        case 4:
            return duplicate(&tree, random: &random)
        case 5:
            guard let path = randomPath(in: tree, random: &random, where: {
                if case .number = $0 { true } else { Self.isString($0) }
            }) else { return "none" }
            let number = random.chance(70) ? FuzzJSON.raw(random.pick(Self.numbers)) : .string(random.pick(Self.valueStrings))
            tree = tree.replacing(at: path[...]) { _ in number }
            return "odd number at \(path)"
        case 6:
            return setGains(&tree, random: &random)
        case 7:
            let plugin = random.pick(Self.plugins)
            return replaceMember(named: "plugin", in: &tree, with: .string(plugin), random: &random)
        case 8:
            // An unknown key, or a known key in the wrong object.
            guard let path = randomPath(in: tree, random: &random, where: {
                if case .object = $0 { true } else { false }
            }) else { return "none" }
            let key = random.pick(["plugins", "id", "apps", "gain", "from", "to", "timeline", "at", "do", "", "$schema",
                                   "x/y~z", "~1", "\u{0}", "é", "params", "session", "format"])
            let value = random.pick(Self.replacements)
            tree = tree.replacing(at: path[...]) { object in
                guard case .object(var members) = object else { return object }
                members.insert((key, value), at: random.below(members.count + 1))
                return .object(members)
            }
            return "add key \(key) at \(path)"
        case 9:
            // Odd strings: ids and names with spaces, slashes, colons, globs and Unicode.
            guard let path = randomPath(in: tree, random: &random, where: Self.isString) else { return "none" }
            let text = random.pick(["a b", "a:b:c", "*", "a:*", "*:*", ":", "a:", ":b", "\u{FEFF}", "é", "𝄞", "a/b",
                                    "~", "system:capture_*", "@playback", "@capture", "@", "\\", "\"", "x\u{1}y",
                                    String(repeating: "a", count: 300), "in_0", "in_999999999999999999999"])
            tree = tree.replacing(at: path[...]) { _ in .string(text) }
            return "odd string at \(path)"
        case 10:
            // Reorder or remove array elements (apps declared after use, connections duplicated).
            guard let path = randomPath(in: tree, random: &random, where: Self.isArray) else { return "none" }
            tree = tree.replacing(at: path[...]) { value in
                guard case .array(var elements) = value else { return value }
                if random.chance(50) {
                    elements.swapAt(random.below(elements.count), random.below(elements.count))
                } else {
                    elements.remove(at: random.below(elements.count))
                }
                return .array(elements)
            }
            return "reorder array at \(path)"
        case 11:
            // Times and values in timelines, durations in the policy.
            return replaceMember(named: random.pick(["at", "value", "duckLevel", "rampTime", "tempo", "bytes", "inputs"]),
                                 in: &tree, with: random.chance(50) ? .raw(random.pick(Self.numbers))
                                    : random.pick(Self.replacements + [.array([.number("144"), .number("256")])]),
                                 random: &random)
        default:
            guard let path = randomPath(in: tree, random: &random) else { return "none" }
            tree = tree.replacing(at: path[...]) { _ in .raw(random.pick(["", ",", "]", "}", "{", "[", ":", "\"", "nul",
                                                                          "'a'", "a", "# c", "// c", "/* c */",
                                                                          "&a", "*a", "!!str x", "- x", "? x"])) }
            return "raw token at \(path)"
        }
    }

    /// Replaces the value of a random member named `name`, anywhere in the tree.
    private func replaceMember(named name: String, in tree: inout FuzzJSON, with value: FuzzJSON,
                               random: inout FuzzRandom) -> String {
        guard let path = randomPath(in: tree, random: &random, where: {
            if case .object(let members) = $0 { members.contains { $0.key == name } } else { false }
        }) else { return "none" }
        tree = tree.replacing(at: path[...]) { object in
            guard case .object(var members) = object, let index = members.firstIndex(where: { $0.key == name }) else {
                return object
            }
            members[index].value = value
            return .object(members)
        }
        return "replace \(name) at \(path)"
    }

    /// Points an `APP:PORT` reference at an app or a port that is not there.
    private func dangle(_ tree: inout FuzzJSON, random: inout FuzzRandom) -> String {
        guard let path = randomPath(in: tree, random: &random, where: {
            if case .string(let text) = $0 { text.contains(":") } else { false }
        }) else { return "none" }
        let choice = random.below(4)
        tree = tree.replacing(at: path[...]) { value in
            guard case .string(let text) = value, let colon = text.firstIndex(of: ":") else { return value }
            let app = text[..<colon], port = text[text.index(after: colon)...]
            switch choice {
            case 0: return .string(app + ":nope")
            case 1: return .string("ghost:" + port)
            case 2: return .string(app + ":" + port + "x")
            default: return .string(String(app))
            }
        }
        return "dangle port at \(path)"
    }

    /// Adds connections that make a loop between apps: a to b and back, or a to itself.
    private func addCycle(_ tree: inout FuzzJSON, random: inout FuzzRandom) -> String {
        guard case .object(var members) = tree,
              let appsIndex = members.firstIndex(where: { $0.key == "apps" }),
              case .array(let apps) = members[appsIndex].value else { return "none" }
        let ids: [String] = apps.compactMap { app in
            guard case .object(let fields) = app, let id = fields.first(where: { $0.key == "id" }),
                  case .string(let text) = id.value else { return nil }
            return text
        }
        guard let first = ids.randomElement(using: &random), let second = ids.randomElement(using: &random) else { return "none" }
        let outputs = ["out", "out_L", "send_1"], inputs = ["in", "in_1", "in_L", "return_1", "in_2"]
        func connection(_ from: String, _ to: String) -> FuzzJSON {
            .object([(key: "from", value: .string(from + ":" + random.pick(outputs))),
                     (key: "to", value: .string(to + ":" + random.pick(inputs)))])
        }
        let added = [connection(first, second), connection(second, first)]
        if let index = members.firstIndex(where: { $0.key == "connections" }), case .array(let existing) = members[index].value {
            members[index].value = .array(existing + added)
        } else {
            members.append((key: "connections", value: .array(added)))
        }
        tree = .object(members)
        return "cycle \(first) <-> \(second)"
    }

    /// Writes a key twice in one object, or an array element (an app: a duplicate id) twice.
    private func duplicate(_ tree: inout FuzzJSON, random: inout FuzzRandom) -> String {
        if random.chance(50), let path = randomPath(in: tree, random: &random, where: Self.isObject) {
            tree = tree.replacing(at: path[...]) { value in
                guard case .object(var members) = value else { return value }
                let member = members[random.below(members.count)]
                members.insert((member.key, random.chance(50) ? member.value : random.pick(Self.replacements)),
                               at: random.below(members.count + 1))
                return .object(members)
            }
            return "duplicate key at \(path)"
        }
        guard let path = randomPath(in: tree, random: &random, where: Self.isArray) else { return "none" }
        tree = tree.replacing(at: path[...]) { value in
            guard case .array(var elements) = value else { return value }
            elements.insert(elements[random.below(elements.count)], at: random.below(elements.count + 1))
            return .array(elements)
        }
        return "duplicate element at \(path)"
    }

    /// Gives every connection (or one) a gain that is out of range, not finite or not a number.
    private func setGains(_ tree: inout FuzzJSON, random: inout FuzzRandom) -> String {
        guard let path = randomPath(in: tree, random: &random, where: {
            if case .object(let members) = $0 { members.contains { $0.key == "from" } } else { false }
        }) else { return "none" }
        let gain: FuzzJSON = switch random.below(3) {
        case 0: .raw(random.pick(Self.numbers))
        case 1: .string(random.pick(Self.valueStrings))
        default: .number(random.pick(["1e308", "-1", "1000000", "8.000001", "1e-300", "-0.0"]))
        }
        tree = tree.replacing(at: path[...]) { value in
            guard case .object(var members) = value else { return value }
            members.removeAll { $0.key == "gain" }
            members.append((key: "gain", value: gain))
            return .object(members)
        }
        return "gain at \(path)"
    }

    // MARK: - Heavy mutations

    private func mutateHeavily(_ tree: inout FuzzJSON, random: inout FuzzRandom) -> String {
        switch random.below(5) {
        case 0:
            // A megabyte string as a value (an id, a plugin, a port) or as a key.
            guard let path = randomPath(in: tree, random: &random, where: Self.isString) else { return "none" }
            let unit = random.pick(["a", "é", "𝄞", "ab:", "\\u00e9", "\u{7}"])
            // A megabyte as written: a control character takes six bytes (`\u0007`).
            let written = FuzzJSON.quoted(unit).utf8.count - 2
            let text = String(repeating: unit, count: (1 << 20) / written)
            if random.chance(70) {
                tree = tree.replacing(at: path[...]) { _ in .string(text) }
                return "1 MB string at \(path)"
            }
            guard let objectPath = randomPath(in: tree, random: &random, where: Self.isObject) else { return "none" }
            tree = tree.replacing(at: objectPath[...]) { value in
                guard case .object(var members) = value else { return value }
                members.append((key: text, value: .number("1")))
                return .object(members)
            }
            return "1 MB key at \(objectPath)"
        case 1:
            // 10,000 levels of arrays or objects, closed or not.
            guard let path = randomPath(in: tree, random: &random) else { return "none" }
            let depth = random.chance(70) ? 10_000 : random.int(in: 100...20_000)
            let object = random.chance(40), closed = random.chance(80)
            let open = object ? "{\"a\":" : "[", close = object ? "}" : "]"
            let text = String(repeating: open, count: depth) + "1" + (closed ? String(repeating: close, count: depth) : "")
            tree = tree.replacing(at: path[...]) { _ in .raw(text) }
            return "nesting \(depth) \(object ? "objects" : "arrays")\(closed ? "" : " unclosed") at \(path)"
        case 2:
            // An array repeated many times: thousands of apps, connections or entries.
            guard let path = randomPath(in: tree, random: &random, where: Self.isArray) else { return "none" }
            let count = random.pick([1_000, 5_000, 10_000])
            tree = tree.replacing(at: path[...]) { value in
                guard case .array(let elements) = value else { return value }
                return .array(Array((0..<count).map { elements[$0 % elements.count] }))
            }
            return "array repeated to \(count) at \(path)"
        case 3:
            // Many distinct apps and a chain of connections through them.
            let count = random.pick([500, 2_000])
            let apps: [FuzzJSON] = (0..<count).map { index in
                .object([(key: "id", value: .string("n\(index)")), (key: "plugin", value: .string("builtin:gain"))])
            }
            let connections: [FuzzJSON] = (1..<count).map { index in
                .object([(key: "from", value: .string("n\(index - 1):out")), (key: "to", value: .string("n\(index):in"))])
            } + (random.chance(50) ? [.object([(key: "from", value: .string("n\(count - 1):out")),
                                               (key: "to", value: .string("n0:in"))])] : [])
            guard case .object(var members) = tree else { return "none" }
            members.removeAll { $0.key == "apps" || $0.key == "connections" }
            members.append((key: "apps", value: .array(apps)))
            members.append((key: "connections", value: .array(connections)))
            tree = .object(members)
            return "chain of \(count) apps"
        default:
            // A megabyte of one character as a raw token (a huge number, a huge bare word).
            guard let path = randomPath(in: tree, random: &random) else { return "none" }
            let unit = random.pick(["9", "[", "{", ",", " ", "\n", "\"", "-"])
            tree = tree.replacing(at: path[...]) { _ in .raw(String(repeating: unit, count: 1 << 20)) }
            return "1 MB of \(unit.debugDescription) at \(path)"
        }
    }

    // MARK: - Text mutations

    private func mutateText(_ bytes: inout [UInt8], random: inout FuzzRandom) -> String {
        let at = bytes.isEmpty ? 0 : random.below(bytes.count + 1)
        switch random.below(9) {
        case 0:
            bytes.removeSubrange(at...)
            return "truncate at \(at)"
        case 1:
            let flips = random.int(in: 1...4)
            for _ in 0..<flips where !bytes.isEmpty {
                bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8))
            }
            return "flip \(flips) bits"
        case 2:
            let sequence = random.pick([[0xFF], [0xFE], [0xC0, 0x80], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                                        [0xE2, 0x82], [0xF0, 0x9F]] as [[UInt8]])
            bytes.insert(contentsOf: sequence, at: at)
            return "invalid UTF-8 \(sequence) at \(at)"
        case 3:
            let control = random.pick([0x00, 0x01, 0x07, 0x08, 0x0B, 0x0C, 0x1B, 0x1F, 0x7F, 0x09, 0x0D] as [UInt8])
            bytes.insert(control, at: at)
            return "control \(control) at \(at)"
        case 4:
            let bom = random.pick([[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE], [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF]] as [[UInt8]])
            bytes.insert(contentsOf: bom, at: random.chance(70) ? 0 : at)
            return "BOM \(bom)"
        case 5:
            let scalar = random.pick(["\u{85}", "\u{2028}", "\u{2029}", "\u{A0}", "\u{FEFF}", "\u{FFFD}", "\u{10FFFF}", "\r", "\r\n"])
            bytes.insert(contentsOf: Array(scalar.utf8), at: at)
            return "scalar \(scalar.unicodeScalars.map(\.value)) at \(at)"
        case 6:
            guard !bytes.isEmpty else { return "none" }
            let end = min(bytes.count, at + random.int(in: 1...40))
            bytes.removeSubrange(min(at, end)..<end)
            return "delete \(at)..<\(end)"
        case 7:
            guard !bytes.isEmpty else { return "none" }
            let start = random.below(bytes.count), end = min(bytes.count, start + random.int(in: 1...60))
            bytes.insert(contentsOf: bytes[start..<end], at: at)
            return "copy \(start)..<\(end) to \(at)"
        default:
            let token = random.pick([",", ",]", ",}", "]", "}", "[", "{", "\"", ":", "\\", "\\u", "\\ud800", "\\uDFFF\\uD800",
                                     "\"\\u0000\"", "-", "e", "#", "\t", "'", "`", "%", "&", "*", "!", "|", ">", "---", "...",
                                     "%YAML 1.2\n", "\n- a\n", "? "])
            bytes.insert(contentsOf: Array(token.utf8), at: at)
            return "insert \(token.debugDescription) at \(at)"
        }
    }
}
