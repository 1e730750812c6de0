import ControlSocket
@testable import Engine
import Foundation
import Testing

/// Requests as clients write them (``ControlCall``) against PROTOCOL.md and the engine's readers.
extension ProtocolVocabularyTests {
    /// A call of every method, each optional member given, for the graph of `requestGraph`.
    static let everyCall: [ControlCall] = [
        .status, .ports, .events, .top, .meters, .dump(graph: true), .graph(format: .dot),
        .connect(from: "tone:out", to: "mix:in_2", gain: 0.5), .disconnect(from: "tone:out", to: "mix:in_2"),
        .get(app: "tone", param: "frequency"), .set(app: "tone", param: "frequency", value: .text("-6dB")),
        .set(app: "tone", param: "frequency", value: .number(330)),
        .setCategory(app: "music", category: "playback", mode: "spokenAudio", options: ["mixWithOthers"]),
        .foreground(app: "music"), .activate(app: "music"), .startAudio(app: "music", recording: true), .stopAudio(app: "music"),
        .deactivate(app: "music", notifyOthers: true), .preferredBuffer(app: "music", frames: 256), .sessionGet(app: "music"),
        .attach(app: "music"), .background(app: "music"), .task(app: "music", action: .begin),
        .device(silent: true, locked: false), .interrupt(type: .begin, reason: "call"), .remote(command: .togglePlayPause),
        .apply(text: requestGraph, file: "graph.json", dryRun: true), .reload(app: "tone"), .enable(app: "tone"),
    ]

    static let requestGraph = """
        { "format": "iaa-graph/1", "name": "calls",
          "apps": [ { "id": "tone", "plugin": "builtin:oscillator" }, { "id": "mix", "plugin": "builtin:mixer", "params": { "inputs": 2 } },
                    { "id": "music", "plugin": "builtin:oscillator", "session": { "category": "playback" } } ],
          "connections": [ { "from": "tone:out", "to": "mix:in_1" } ] }
        """

    @Test("PROTOCOL.md's methods table documents every member a call writes, and every call reads back as written")
    func requests() throws {
        #expect(Set(Self.everyCall.map(\.method)) == Set(ControlMethod.allCases), "a method has no call in everyCall")
        // A cell's own `|` is written `\|`.
        let rows = Self.document.components(separatedBy: "\n").filter { $0.hasPrefix("| `") }
            .map { $0.replacingOccurrences(of: "\\|", with: "¦") }
        for call in Self.everyCall {
            let row = try #require(rows.first { $0.split(separator: "|").first?.contains("`\(call.method.rawValue)`") == true },
                                   "PROTOCOL.md has no row for \(call.method.rawValue)")
            let cell = row.split(separator: "|", omittingEmptySubsequences: true).dropFirst().first ?? ""
            for key in Self.memberNames(call.params) { #expect(cell.contains("`\(key)`"), "\(call.method.rawValue)'s params lack `\(key)`") }
            #expect(ControlCall(method: call.method, params: try ControlJSONParser.parse(call.params.text)) == call)
        }
    }

    @Test("the engine reads every call a client can write: none is refused as malformed")
    func engineReadsEveryCall() throws {
        let live = try LiveCore(Self.requestGraph)
        for call in Self.everyCall {
            let error = live.refusal(call.method.rawValue, call.params)
            #expect(error?.code != TransportErrorCode.invalidRequest.rawValue && error?.code != "invalidParams" && error?.code != "unknownMethod",
                    "\(call.method.rawValue) \(call.params.text): \(error.map { "\($0.code): \($0.message)" } ?? "")")
        }
    }
}
