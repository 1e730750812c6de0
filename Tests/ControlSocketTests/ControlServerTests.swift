#if canImport(Glibc)
import Glibc
#endif
import ControlSocket
import Dispatch
import Foundation
import Synchronization
import Testing
import TestKit

@Suite("Control server: requests and replies", .serialized)
struct ControlServerTests {
    @Test("a reply carries the request's id, number or string")
    func idsAreEchoed() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.call("echo", params: ["a": 1, "b": "two"]).get() == ["a": 1, "b": "two"])
        try client.sendRaw(Array(#"{"id":"abc","method":"echo","params":{"x":[1,2]}}"#.utf8) + [10])
        #expect(try client.readLine().map { String(decoding: $0, as: UTF8.self) } == #"{"id":"abc","result":{"x":[1,2]}}"#)
        try client.sendRaw(Array(#"{"id":7.5,"method":"echo"}"#.utf8) + [13, 10])
        #expect(try client.readLine().map { String(decoding: $0, as: UTF8.self) } == #"{"id":7.5,"result":{}}"#)
    }

    @Test("the handler's errors reach the client with code, message and field")
    func handlerErrors() throws {
        let server = try TestServer()
        let result = try server.client().call("nonsense")
        #expect(result == .failure(ControlError(code: "unknownMethod", message: "no method nonsense", field: "method")))
    }

    @Test("the handler sees the peer's uid and pid")
    func peerCredentials() throws {
        let server = try TestServer()
        let result = try server.client().call("whoami").get()
        #expect(result["uid"]?.intValue == Int(geteuid()))
        #expect(result["pid"]?.intValue == Int(getpid()))
    }

    @Test("garbage, truncated and wrong-typed requests each get their error, and the connection goes on",
          arguments: [
              ("garbage\u{7}\u{0}", "parseError", nil, nil),
              (#"{"id":1,"meth"#, "parseError", nil, nil),
              (#"[1,2]"#, "invalidRequest", nil, nil),
              (#"{"method":"echo"}"#, "invalidRequest", nil, "id"),
              (#"{"id":{},"method":"echo"}"#, "invalidRequest", nil, "id"),
              (#"{"id":3,"method":5}"#, "invalidRequest", 3, "method"),
              (#"{"id":4}"#, "invalidRequest", 4, "method"),
              (#"{"id":5,"method":""}"#, "invalidRequest", 5, "method"),
              (#"{"id":6,"method":"echo","params":[1]}"#, "invalidRequest", 6, "params"),
              (#"{"id":8,"method":"echo","param":{}}"#, "invalidRequest", 8, "param"),
              (#"{"id":9,"method":"echo","id":10}"#, "parseError", nil, nil),
          ] as [(String, String, Int?, String?)])
    func badRequests(line: String, code: String, id: Int?, field: String?) throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw(Array(line.utf8) + [10])
        let reply = json(try client.readLine())
        #expect(reply?["error"]?["code"]?.stringValue == code)
        #expect(reply?["error"]?["message"]?.stringValue?.isEmpty == false)
        #expect(reply?["error"]?["field"]?.stringValue == field)
        #expect(reply?["id"] == id.map { .number(Double($0)) } ?? .null)
        #expect(try client.call("echo", params: ["still": true]).get() == ["still": true])
    }

    @Test("errors keep their place among replies still owed")
    func errorOrder() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.sendRaw(Array("{\"id\":1,\"method\":\"sleep\",\"params\":{\"ms\":100}}\nnot json\n{\"id\":2,\"method\":\"echo\"}\n".utf8))
        #expect(json(try client.readLine())?["id"] == 1)
        #expect(errorCode(try client.readLine()) == "parseError")
        #expect(json(try client.readLine())?["id"] == 2)
    }

    @Test("a line over 1 MiB gets requestTooLarge and the connection closes; others are served")
    func oversizedRequest() throws {
        let server = try TestServer()
        let bystander = try server.client()
        let client = try server.client()
        let huge = #"{"id":1,"method":"echo","params":{"s":""# + String(repeating: "a", count: (1 << 20) + 10) + "\"}}\n"
        try? client.sendRaw(Array(huge.utf8))
        #expect(errorCode(try client.readLine()) == "requestTooLarge")
        #expect(try client.readLine() == nil)
        #expect(try bystander.call("echo", params: ["ok": 1]).get() == ["ok": 1])
    }

    @Test("a line just under 1 MiB is a request like any other")
    func largestRequest() throws {
        let server = try TestServer()
        let client = try server.client()
        let padding = String(repeating: "b", count: (1 << 20) - 64)
        let result = try client.call("echo", params: ["s": .string(padding)]).get()
        #expect(result["s"]?.stringValue?.count == padding.count)
    }

    @Test("a stream sends its initial result, then published lines in order")
    func stream() throws {
        let server = try TestServer()
        let received = Mutex<[String]>([])
        let initial = Mutex<ControlJSON?>(nil)
        let path = server.path
        let reader = Thread {
            guard let client = try? ControlClient(path: path) else { return }
            _ = try? client.stream("follow", params: ["topic": "events"],
                                   onStart: { value in initial.withLock { $0 = value } }) { line in
                received.withLock { $0.append(line) }
                return received.withLock { $0.count } < 3
            }
        }
        reader.start()
        #expect(waitUntil(seconds: 5) { server.server.subscriberCount(topic: "events") == 1 })
        server.server.publish("{\"n\":1}", topic: "other")
        for n in 1...3 { server.server.publish(["n": .number(Double(n))], topic: "events") }
        #expect(waitUntil(seconds: 5) { received.withLock { $0.count } == 3 })
        #expect(received.withLock { $0 } == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
        #expect(initial.withLock { $0 } == ["stream": "events"])
        #expect(waitUntil(seconds: 5) { server.server.subscriberCount(topic: "events") == 0 })
    }

    @Test("lines published on the control queue right after the stream's handler returns all arrive, after its reply")
    func publishRightAfterSubscribing() throws {
        let directory = try makeTemporaryDirectory("cs")
        defer { removeTree(directory) }
        let queue = DispatchQueue(label: "test.control")
        let box = Mutex<ControlServer?>(nil)
        let server = try ControlServer(path: "\(directory)/s.sock", queue: queue) { _ in
            queue.async {
                let server = box.withLock { $0 }
                for n in 1...3 { server?.publish(["n": .number(Double(n))], topic: "t") }
            }
            return .stream(topic: "t", initial: "hello")
        }
        box.withLock { $0 = server }
        defer { box.withLock { $0 = nil } }
        server.start()
        var lines: [String] = []
        let outcome = try ControlClient(path: server.path).stream("follow", onStart: { #expect($0 == "hello") }) { line in
            lines.append(line)
            return lines.count < 3
        }
        #expect((try? outcome.get()) != nil)
        #expect(lines == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
    }

    @Test("no engine on the path is the CLI's exit-2 message")
    func notRunning() throws {
        let directory = try makeTemporaryDirectory("cs")
        defer { removeTree(directory) }
        let error = #expect(throws: ControlSocketError.self) { try ControlClient(path: "\(directory)/none.sock") }
        #expect(error?.code == .notRunning)
        #expect(error?.message == "no iaa engine is running on socket \(directory)/none.sock (start one with `iaa run GRAPH`)")
    }
}
