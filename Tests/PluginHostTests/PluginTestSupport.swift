import AudioGraph
import Engine
import GraphFormat
import Foundation
import Nodes
import OfflineBackend
import PluginHost
import Synchronization
import Testing
import TestKit

/// Plugin builds and registries the plugin tests share (paths, folders, commands: TestKit).
enum PluginTestSupport {
    static var includeDirectory: String { Repository.path("Sources/IAAPluginABI/include") }

    /// Compiles C `source` into `directory/name` as a shared library, the way a plugin author does.
    static func compileC(_ source: String, name: String, in directory: String) throws -> String {
        let file = directory + "/" + name + ".c"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let library = directory + "/" + name
        let result = try runCommand("cc", ["-std=c99", "-O2", "-shared", "-fPIC", "-I", includeDirectory, "-o", library, file, "-lm"])
        try #require(result.status == 0, "cc failed:\n\(result.output)")
        return library
    }

    /// Held around every `swift build` a test starts: concurrent SwiftPM processes resolving the
    /// same dependencies contend for SwiftPM's shared cache.
    static let swiftBuildLock = Mutex(())

    /// Builds a Swift example (release) once per test run, with a scratch folder kept under the
    /// package's `.build` so later runs only build what changed (tools/test gives each lane a /tmp
    /// of its own, which goes with the run), and returns the library's path.
    static func buildSwiftExample(_ folder: String, product: String) throws -> String {
        let scratch = Repository.path(".build/plugin-examples/\(folder)")
        let result = try swiftBuildLock.withLock { _ in
            try runCommand("swift", ["build", "-c", "release", "--package-path", Repository.path("Examples/Plugins/" + folder),
                              "--scratch-path", scratch])
        }
        try #require(result.status == 0, "swift build of \(folder) failed:\n\(result.output)")
        // The examples depend on the checkout's SDK/ package, which depends on no other.
        let checkouts = checkedOut(scratch: scratch)
        #expect(checkouts.isEmpty, "the build of \(folder) checked out \(checkouts)")
        return scratch + "/release/lib\(product).so"
    }

    /// The packages a Swift build with scratch folder `scratch` checked out (none for a plugin,
    /// whose SDK depends on no other package).
    static func checkedOut(scratch: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: scratch + "/checkouts")) ?? []
    }

    /// Each Swift example, built at most once per run (a `static let` runs once, even when
    /// tests ask for it in parallel).
    static let ringModulator = Result { try buildSwiftExample("ringmod-swift", product: "RingMod") }
    static let generator = Result { try buildSwiftExample("generator-swift", product: "Generator") }

    /// The built-in registry with the plugin resolver installed as the engine installs it,
    /// searching `searchPath`.
    static func registry(searchPath: [String] = []) -> NodeRegistry {
        GraphLoading.registry(resolver: PluginResolver(searchPath: searchPath))
    }

    /// Copies an example's graph.json next to its built library and returns the copy's path, so
    /// the graph's relative `plugin` path finds the library.
    static func stage(example: String, library: String) throws -> String {
        let directory = try makeTemporaryDirectory("plugin-tests-" + example)
        let name = URL(fileURLWithPath: library).lastPathComponent
        try FileManager.default.copyItem(atPath: library, toPath: directory + "/" + name)
        try FileManager.default.copyItem(atPath: Repository.path("Examples/Plugins/\(example)/graph.json"),
                                         toPath: directory + "/graph.json")
        return directory + "/graph.json"
    }
}

/// One offline engine for a graph file: node instances, a backend and its plan.
final class OfflineRig {
    let sampleRate: Double
    let blockSize: Int
    let instances: NodeInstances
    let backend: OfflineBackend

    init(graphPath: String, registry: NodeRegistry = PluginTestSupport.registry(),
         sampleRate: Double = 48_000, blockSize: Int = 256) throws {
        self.sampleRate = sampleRate
        self.blockSize = blockSize
        let loaded = GraphFile.load(path: graphPath, registry: registry)
        let graph = try #require(loaded.graph, "graph did not validate:\n\(loaded.diagnostics.map(\.formatted).joined(separator: "\n"))")
        instances = NodeInstances(sampleRate: sampleRate, maximumFrames: blockSize)
        backend = OfflineBackend(sampleRate: sampleRate, blockSize: blockSize)
        backend.install(PlanCompiler.compile(graph, slots: try instances.slots(for: graph), sampleRate: sampleRate,
                                             maximumFrames: blockSize, generation: 1))
    }

    /// Renders `frames` frames and returns what `APP:PORT` produced.
    func render(frames: Int, port: String, beforeCycle: (Int) -> Void = { _ in }) throws -> [Float] {
        let parts = port.split(separator: ":", maxSplits: 1).map(String.init)
        var result: [Float] = []
        result.reserveCapacity(frames)
        var cycle = 0
        while result.count < frames {
            beforeCycle(cycle)
            let count = min(blockSize, frames - result.count)
            let plan = try #require(backend.renderCycle(frames: count), "no plan installed")
            let buffer = try #require(plan.outputBuffer(app: parts[0], port: parts[1]), "no output \(port)")
            result.append(contentsOf: UnsafeBufferPointer(start: buffer, count: count))
            cycle += 1
        }
        return result
    }
}
