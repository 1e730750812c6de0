/// `dump` with `"graph": true`: the running graph as a graph file's text, which `iaa run` and
/// `iaa apply` load again.
public struct GraphFileReply: Sendable, Equatable {
    public var file: String

    public init(file: String) { self.file = file }

    public var json: ControlJSON { .object([("file", .string(file))]) }

    public init?(json: ControlJSON) {
        guard let file = json["file"]?.stringValue else { return nil }
        self.init(file: file)
    }
}
