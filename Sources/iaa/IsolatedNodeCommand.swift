import ArgumentParser
import Engine
import Foundation
import Isolation
import NodeKit
import PluginHost

/// The child process of an isolated app (hidden): the engine starts it with the shared memory as
/// descriptor 3 and its output on a pipe the engine tags; it restricts itself before it opens
/// the plugin (the load phase), creates the app's node, restricts itself further (the process
/// phase) and renders the cycles the engine hands it. See docs/isolation.md.
///
/// With `--describe`, the describe child: descriptor 3 is a pipe instead, `--plugin` a native
/// library's absolute path; under the same load phase it opens the library, writes its node types
/// there as one JSON document (``LibraryDescriptionWire``) and exits, so the engine learns an
/// untrusted library's ports and parameters without running its code.
struct IsolatedNodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isolated-node",
        abstract: "The child process of an isolated app (started by the engine, not by hand).",
        shouldDisplay: false)

    @Option(help: "The app this child renders.")
    var app: String = ""
    @Flag(help: "Describe the library --plugin names on descriptor 3, then exit.")
    var describe = false
    @Option(help: "The graph's `plugin` value.")
    var plugin: String
    @Option(help: "The graph file's folder (relative plugin paths start there).")
    var directory: String
    @Option(help: "A configuration value KEY=VALUE (repeatable).")
    var config: [String] = []
    @Option(help: "SCHED_FIFO priority for the rendering thread.")
    var realtimePriority: Int32?

    func run() throws {
        if describe { throw ExitCode(describeLibrary()) }
        let segment: Segment
        do {
            segment = try Segment.attach(descriptor: 3)
        } catch {
            StandardError.write("isolated-node: \(error)", level: .error)
            throw ExitCode(2)
        }
        restrictLoading(label: app)
        switch makeNode(segment: segment) {
        case .success(let node):
            throw ExitCode(serve(node, segment: segment))
        case .failure(let message):
            ChildRunner.fail(segment, message)
            throw ExitCode(1)
        }
    }

    /// The load phase: before the plugin's first instruction, since opening its library runs the
    /// library's constructors. The child loads its one library once, from the file itself: a
    /// private copy would need a writable folder.
    private func restrictLoading(label: String) {
        PluginLibrary.loadsPrivateCopy.store(false, ordering: .relaxed)
        if let unrestricted = ChildRunner.restrictLoading(readable: LoadPhasePaths.readable(plugin: plugin, directory: directory),
                                                          app: label) {
            let line = Array((unrestricted + "\n").utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }

    /// `--describe`: the library's node types, or why it is no plugin, on descriptor 3. The exit
    /// status is 0 whenever an answer was written (a load error is an answer).
    private func describeLibrary() -> Int32 {
        restrictLoading(label: plugin)
        let answer: LibraryDescriptionWire
        do {
            answer = LibraryDescriptionWire(try PluginLibrary(path: plugin))
        } catch {
            answer = LibraryDescriptionWire(error)
        }
        var bytes = answer.encoded()[...]
        // The engine made the pipe non-blocking; an answer larger than the pipe waits for it to read.
        _ = fcntl(3, F_SETFL, fcntl(3, F_GETFL) & ~O_NONBLOCK)
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return 2 }
            bytes = bytes.dropFirst(written)
        }
        return 0
    }

    private func serve<Node: AudioNode>(_ node: Node, segment: Segment) -> Int32 {
        ChildRunner.serve(node, segment: segment, app: app, realtimePriority: realtimePriority)
    }

    enum Made {
        case success(any AudioNode)
        case failure(String)
    }

    /// The node as the engine's registry makes it, prepared at the segment's rate and size, with
    /// the layout the engine expects; else why not.
    private func makeNode(segment: Segment) -> Made {
        var values: [String: Int] = [:]
        for pair in config {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]) else { return .failure("bad --config \(pair)") }
            values[String(parts[0])] = value
        }
        let configuration = NodeConfiguration(values)
        // The child is the sandbox: it opens the library itself rather than describing it again.
        let registry = GraphLoading.registry(resolver: PluginResolver.fromEnvironment())
        var type = registry[plugin]
        if type == nil, let resolver = registry.resolver {
            switch resolver(plugin, directory) {
            case .success(let resolved): type = resolved
            case .failure(let error): return .failure(error.message)
            }
        }
        guard let type else { return .failure("no node type \"\(plugin)\"") }
        let layout = type.layout(configuration)
        guard layout.inputs.count == segment.inputCount, layout.outputs.count == segment.outputCount,
              type.parameters.count == segment.parameterCount else {
            return .failure("\(plugin) now has \(layout.inputs.count) inputs, \(layout.outputs.count) outputs and \(type.parameters.count) parameters; the engine expected \(segment.inputCount), \(segment.outputCount) and \(segment.parameterCount)")
        }
        do {
            let node = try type.makeNode(configuration)
            node.prepare(sampleRate: segment.header.pointee.sample_rate, maximumFrames: segment.maximumFrames)
            if let failure = (node as? PluginNode)?.failure { return .failure(failure) }
            return .success(node)
        } catch {
            return .failure("\(error)")
        }
    }
}
