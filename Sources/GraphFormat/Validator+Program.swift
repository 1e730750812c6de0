import AudioGraph
import LocatedJSON
import NodeKit
import Suggestions

extension Validator {
    /// Whether the app has a `program` block (a block of the wrong JSON type, reported while
    /// reading, still counts as written).
    func writesProgram(_ app: AppDescription) -> Bool {
        app.program != nil || app.mistyped.contains("program")
    }

    /// A program app's binding, node type and configuration; nil binding after reporting what is
    /// wrong.
    mutating func program(of app: AppDescription, role: AppRole) -> (ProgramBinding?, NodeType?, NodeConfiguration) {
        let type = checkProgramApp(app, role: role, block: "program")
        guard let node = app.program, node.isObject else { return (nil, type, NodeConfiguration()) }
        let pointer = app.pointer + "/program"
        let object = ObjectReader(node, pointer: pointer, allowed: DescriptionReader.Keys.program, sink: &sink)
        guard let binding = programBinding(object, at: pointer) else { return (nil, type, NodeConfiguration()) }
        return (binding, type, NodeConfiguration(["outputs": binding.outputs, "inputs": binding.inputs]))
    }

    /// What holds for every app whose sound is an outside process's (a `program` or a `link`
    /// block): no `plugin`, no `params`, the role `app`. Returns the node type such apps run.
    mutating func checkProgramApp(_ app: AppDescription, role: AppRole, block: String) -> NodeType? {
        let what = block == "link" ? "a \"link\" (to another machine, through a program the engine runs)" : "a \"program\" (an outside process)"
        if app.plugin != nil {
            sink.error(.programConflict, at: app.pointer + "/plugin",
                       "an app has a \"plugin\" (a node running in the engine) or \(what), not both",
                       hint: "remove \"plugin\" to make the app an outside program's, or \"\(block)\" to run the node")
        }
        if role != .app {
            sink.error(.programConflict, at: app.pointer + "/role",
                       "a \(block) app cannot be an Inter-App Audio \(role.rawValue): the engine cannot check an outside program's component",
                       hint: "leave \"role\" out (a \(block) app is an \"app\")")
        }
        for assignment in app.params {
            sink.error(.unknownParameter, at: JSONPointer.appending(app.pointer + "/params", assignment.name), atKey: true,
                       "a \(block) app has no parameters",
                       hint: block == "link" ? "set its channels in \"link\": \"channels\"" : "set its channels in \"program\": \"outputs\", \"inputs\"")
        }
        let type = registry[ProgramBinding.nodeTypeID]
        if type == nil {
            sink.error(.unknownPlugin, at: app.pointer + "/" + block, "this engine has no \(ProgramBinding.nodeTypeID) node type to run \(block) apps with")
        }
        return type
    }

    /// The process restrictions, channels and direct connections of a `program` (or
    /// `programs.admit`) object, or nil after reporting what is wrong.
    mutating func programBinding(_ object: ObjectReader, at pointer: String, admitted: Bool = false) -> ProgramBinding? {
        var failed = false
        let jackClient = object.string("jackClient", &sink)
        if let jackClient, !Self.isJackClientPattern(jackClient) {
            sink.error(.invalidValue, at: pointer + "/jackClient",
                       "\(JSONText.quoted(jackClient)) is not a JACK client name: 1 to 63 bytes, without ':'",
                       hint: "a client name such as \"mpv\", or a glob such as \"mpv*\" (JACK renames a second mpv to mpv-01)")
            failed = true
        }
        let executable = object.string("executable", &sink)
        if let executable, !executable.hasPrefix("/") {
            sink.error(.invalidValue, at: pointer + "/executable", "\(JSONText.quoted(executable)) is not an absolute path",
                       hint: "the program's binary as /proc/PID/exe shows it, such as \"/usr/bin/mpv\" (`command -v mpv` finds it)")
            failed = true
        }
        let uid = wholeNumber(object, "uid", range: 0...Int(UInt32.max - 1), at: pointer, hint: "a user id such as 1000 (`id -u`)")
        let outputs = wholeNumber(object, "outputs", range: 0...16, at: pointer, hint: "2 for a stereo program")
        if outputs == 0, jackClient != nil {
            sink.error(.outOfRange, at: pointer + "/outputs", "a program routed from a JACK client plays at least one channel",
                       hint: "0 outputs is for an app whose program only speaks for its session (no \"jackClient\"), such as a satellite's app")
            failed = true
        }
        let inputs = wholeNumber(object, "inputs", range: 0...16, at: pointer, hint: "0 for a program that records nothing")
        var direct = ProgramBinding.DirectConnections.undo
        if let written = object.string("directConnections", &sink) {
            if let known = ProgramBinding.DirectConnections(rawValue: written) {
                direct = known
            } else {
                let names = ProgramBinding.DirectConnections.allCases.map(\.rawValue)
                sink.error(.invalidValue, at: pointer + "/directConnections", "unknown value \(JSONText.quoted(written))",
                           hint: Suggestion.hint(for: written, in: names) ?? "\"undo\" (the default) or \"allow\"")
                failed = true
            }
        }
        if object.member("jackClient") != nil && jackClient == nil || object.member("executable") != nil && executable == nil { failed = true }
        for key in ["uid", "outputs", "inputs"] where object.member(key) != nil {
            if key == "uid" && uid == nil || key == "outputs" && outputs == nil || key == "inputs" && inputs == nil { failed = true }
        }
        guard !failed else { return nil }
        return ProgramBinding(jackClient: jackClient, uid: uid.map(UInt32.init), executable: executable,
                              outputs: outputs ?? 2, inputs: inputs ?? 0, directConnections: direct, admitted: admitted)
    }

    /// A whole number in `range`, or nil after reporting (nil also when absent).
    mutating func wholeNumber(_ object: ObjectReader, _ key: String, range: ClosedRange<Int>, at pointer: String,
                                  hint: String) -> Int? {
        guard let number = object.number(key, &sink) else { return nil }
        guard number.rounded() == number, number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            sink.error(.outOfRange, at: pointer + "/" + key,
                       "\(JSONText.quoted(key)) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(Self.text(number))",
                       hint: hint)
            return nil
        }
        return Int(number)
    }

    /// A JACK client name or a glob over one: JACK's limit, and no ':' (which ends a client name).
    static func isJackClientPattern(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 63 && !text.contains(":")
    }

    /// Reports each of `ports` that is a program app's end (`play_K`, `capture_K`): only the
    /// engine connects those. Returns whether any was.
    mutating func refuseProgramEnds(_ ports: some Collection<PortAddress>, output: Bool, at pointer: @autoclosure () -> String) -> Bool {
        var refused = false
        for address in ports {
            guard apps[address.app].hasProgramEnds, let layout = apps[address.app].layout else { continue }
            let spec = output ? layout.outputs[address.port] : layout.inputs[address.port]
            guard spec.programEnd else { continue }
            let id = apps[address.app].id ?? "?"
            let instead = spec.name.hasPrefix("play_") ? "\(id):out_\(spec.name.dropFirst(5))" : "\(id):in_\(spec.name.dropFirst(8))"
            sink.error(.programPort, at: pointer(),
                       "\(JSONText.quoted("\(id):\(spec.name)")) is the program's end of app \(JSONText.quoted(id)): the engine connects it to the program's own JACK ports",
                       hint: "use \(JSONText.quoted(instead)), the app's side of the route")
            refused = true
        }
        return refused
    }
}

extension ProgramBinding {
    /// The node type a program app runs (`Nodes` provides it).
    public static let nodeTypeID = "builtin:program"
}
