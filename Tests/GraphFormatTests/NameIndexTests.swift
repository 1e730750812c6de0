@testable import GraphFormat
import Testing

/// The byte-keyed table behind app ids, port names and the duplicate-connection check.
@Suite("Name tables")
struct NameIndexTests {
    @Test("names are kept per namespace, the first value stays, and bytes find what strings stored")
    func namespaces() {
        var index = NameIndex()
        #expect(index.insert("in_1", in: 0, 10) == 10)
        #expect(index.insert("in_1", in: 1, 11) == 11)
        #expect(index.insert("in_1", in: 0, 12) == 10)
        #expect(index["in_1", in: 0] == 10 && index["in_1", in: 1] == 11 && index["in_1", in: 2] == nil)
        #expect(index["in_2"] == nil && index[""] == nil)
        let bytes = Array("in_1".utf8)
        #expect(bytes.withUnsafeBufferPointer { index[$0, in: 1] } == 11)
        #expect(index.insert("", in: 0, 5) == 5 && index[""] == 5)
    }

    @Test("a table grows past its capacity (rehashing) and finds every name afterwards")
    func growth() {
        var index = NameIndex(capacity: 2)
        for number in 0..<5_000 { index.insert("app\(number)-with-a-name-longer-than-sixteen-bytes", in: number % 7, number) }
        for number in stride(from: 0, to: 5_000, by: 37) {
            #expect(index["app\(number)-with-a-name-longer-than-sixteen-bytes", in: number % 7] == number)
            #expect(index["app\(number)-with-a-name-longer-than-sixteen-bytes", in: (number + 1) % 7] == nil)
        }
    }

    @Test("a copy is a value: inserting into one leaves the other as it was")
    func copyOnWrite() {
        var original = NameIndex()
        original.insert("tone", 0)
        var copy = original
        copy.insert("pad", 1)
        original.insert("bass", 2)
        #expect(original["pad"] == nil && original["bass"] == 2 && original["tone"] == 0)
        #expect(copy["bass"] == nil && copy["pad"] == 1 && copy["tone"] == 0)
    }
}
