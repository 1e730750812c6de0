import ControlSocket
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("Control JSON")
struct ControlJSONTests {
    @Test("values round-trip through text, keeping key order")
    func roundTrip() throws {
        let text = #"{"b":1,"a":[true,false,null,-2.5,"x\"\\\n\u0001é😀"],"c":{}}"#
        let value = try ControlJSONParser.parse(text)
        #expect(value.text == #"{"b":1,"a":[true,false,null,-2.5,"x\"\\\n\u0001é😀"],"c":{}}"#)
        #expect(try ControlJSONParser.parse(value.text) == value)
        #expect(value["b"]?.intValue == 1)
    }

    @Test("a reply of a megabyte and more on one line, 100,000 members, reads in linear time")
    func longLineReadsInLinearTime() throws {
        // Every key's column used to be counted from the line's start as the value was built: a
        // status of 1,000 apps (277 kB) took the CLI 1.6 s, this one minutes. The bound is a hang's.
        let text = "{" + (0..<100_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let done = DispatchSemaphore(value: 0)
        let members = Mutex(0)
        Thread {
            let count = (try? ControlJSONParser.parse(text))?.objectValue?.count ?? -1
            members.withLock { $0 = count }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 20) == .success, "parsing took over 20 s")
        #expect(members.withLock { $0 } == 100_000)
    }

    @Test("surrogate pairs decode, lone surrogates are refused")
    func surrogates() throws {
        #expect(try ControlJSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(throws: ControlJSONParser.Failure.self) { try ControlJSONParser.parse(#""\ud83d""#) }
        #expect(throws: ControlJSONParser.Failure.self) { try ControlJSONParser.parse(#""\ude00""#) }
    }

    @Test("what Foundation accepts but JSON does not is refused", arguments: [
        #"{"a":1,}"#, "[1,]", #"{"a":1,"a":2}"#, "01", "1.", ".5", "+1", "NaN", "1e999",
        "\"raw\ttab\"", "'single'", "{a:1}", "[1] [2]", "", "tru", "\"\\x\"",
    ])
    func strictness(text: String) {
        #expect(throws: ControlJSONParser.Failure.self) { try ControlJSONParser.parse(text) }
    }

    @Test("invalid UTF-8 is refused, not repaired")
    func invalidUTF8() {
        #expect(throws: ControlJSONParser.Failure.self) { try ControlJSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("10,000 nested brackets are an error, not a stack overflow")
    func deepNesting() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: ControlJSONParser.Failure.self) { try ControlJSONParser.parse(text) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? ControlJSONParser.parse(fine)) != nil)
    }

    @Test("integral numbers print without a fraction; non-finite ones as null")
    func numbers() {
        #expect(ControlJSON.number(7).text == "7")
        #expect(ControlJSON.number(-0.25).text == "-0.25")
        #expect(ControlJSON.number(.nan).text == "null")
        #expect(ControlJSON.number(1e300).text == "1e+300")
    }
}
