import LocatedJSON
import Testing

/// The tape under every node: what readers get in place (`member`, `entries`, `items`, `string`,
/// `number`) must be what the made value (`value`, `members`, `elements`) says, for nodes read
/// from text and for nodes made in code alike.
@Suite("The token tape")
struct JSONTapeTests {
    static let document = #"""
    {"name": "tone", "escaped": "a\"b\u00e9", 'single': 'it''s', "n": -2.5e-1, "t": true, "f": false,
     "z": null, "list": [1, "two", [3], {"four": 4}], "empty": {}, "none": []}
    """#

    @Test("reading in place agrees with the made value, strings with escapes and quotes included")
    func inPlaceAgreesWithValue() throws {
        let root = try #require(JSONReader.read(Self.document).root)
        let members = try #require(root.members)
        #expect(members.map(\.key) == ["name", "escaped", "single", "n", "t", "f", "z", "list", "empty", "none"])
        #expect(root.count == members.count)
        #expect(root.entries.map { $0.key.string ?? "?" } == members.map(\.key))
        for (entry, member) in zip(root.entries, members) {
            #expect(entry.value == member.value)
            #expect(root.member(member.key) == member.value)
            #expect(entry.key.location == member.keyLocation)
        }
        #expect(root.member("escaped")?.string == "a\"bé")
        #expect(root.member("escaped")?.isString("a\"bé") == true)
        #expect(root.member("single")?.string == "it's")
        #expect(root.member("n")?.number == -0.25)
        guard case .number(_, let text)? = root.member("n")?.value else {
            Issue.record("n is not a number")
            return
        }
        #expect(text == "-2.5e-1")
        #expect(root.member("t")?.bool == true && root.member("f")?.bool == false)
        #expect(root.member("z")?.value == .null && root.member("z")?.typeName == "null")
        #expect(root.member("missing") == nil)
        let list = try #require(root.member("list"))
        #expect(list.isArray && list.count == 4)
        #expect(list.items.map(\.typeName) == ["number", "string", "array", "object"])
        #expect(Array(list.items) == list.elements)
        #expect(list.items.dropFirst(3).first { _ in true }?.member("four")?.number == 4)
        #expect(root.member("empty")?.entries.map(\.key).isEmpty == true)
        #expect(root.member("none")?.items.map(\.typeName).isEmpty == true)
        // What is not a container has no members or elements, in place or made.
        #expect(root.member("name")?.member("x") == nil && root.member("name")?.count == 0)
        #expect(root.member("name")?.entries.map(\.key).isEmpty == true && root.member("name")?.items.map(\.typeName).isEmpty == true)
    }

    @Test("a node made in code reads like the node it was made from, locations included")
    func madeNodesReadTheSame() throws {
        let read = try #require(JSONReader.read(Self.document).root)
        let made = JSONNode(read.value, location: read.location)
        #expect(made == read)
        #expect(made.member("list")?.items.map(\.typeName) == read.member("list")?.items.map(\.typeName))
        #expect(made.member("escaped")?.string == "a\"bé" && made.member("n")?.number == -0.25)
        #expect(made.member("list")?.location == read.member("list")?.location)
        let bare = JSONNode(.object([JSONNode.Member(key: "k", keyLocation: nil, value: JSONNode(.number(1, text: "1")))]))
        #expect(bare.member("k")?.number == 1 && bare.location == nil && bare.entries.map(\.key.location) == [nil])
        #expect(bare != made)
    }

    @Test("a key set sorts an object's members in one pass: past 16 keys, past 16 bytes, unknown keys in order")
    func keyedMembers() throws {
        // 20 keys (positions 16 and up are kept apart), two of them sharing their first 16 bytes.
        var names = (0..<18).map { "key\($0)" }
        names += ["abcdefghijklmnop_one", "abcdefghijklmnop_two"]
        let keys = JSONKeySet(names)
        let text = "{" + names.reversed().enumerated().map { "\"\($1)\": \($0)" }.joined(separator: ", ")
            + ", \"abcdefghijklmnop_three\": 99, \"other\": 98}"
        let root = try #require(JSONReader.read(text).root)
        let members = KeyedMembers(root, by: keys)
        for (position, name) in names.enumerated() {
            #expect(members.value(at: position) == root.member(name), "\(name)")
            #expect(keys.position(of: name) == position)
        }
        #expect(members.unknown.map { $0.string ?? "?" } == ["abcdefghijklmnop_three", "other"])
        #expect(keys.position(of: "abcdefghijklmnop_three") == nil)
        let none = KeyedMembers(try #require(root.member("other")), by: keys)
        #expect(none.value(at: 0) == nil && none.unknown.isEmpty)
    }
}
