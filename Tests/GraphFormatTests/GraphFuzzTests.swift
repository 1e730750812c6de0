import AudioGraph
import GraphFormat
import Foundation
import Nodes
import Testing
import TestKit

/// Fuzzes the graph and timeline loaders with mutated copies of the real graphs: every input must
/// load in time, be either accepted or rejected with located errors, load the same way twice, and
/// leave memory where it was.
///
/// `IAA_FUZZ_SEED`, `IAA_FUZZ_COUNT` and `IAA_FUZZ_BIG_COUNT` change the runs; a failure prints
/// the run seed and the input's index, `IAA_FUZZ_ONLY=INDEX` replays that one input, and
/// `IAA_FUZZ_TRACE=1` prints each input's origin before loading it (for a crash, which no test
/// can catch).
@Suite("Graph fuzzing", .serialized)
struct GraphFuzzTests {
    static let defaultSeed: UInt64 = 0x1AA_F022
    static let defaultCount = 10_000
    static let defaultBigCount = 24
    /// No input may take longer than this, in either of its two loads. Inputs over 100 kB get
    /// 30 s: validating 1 MB legitimately takes about a second in a debug build, several on a
    /// machine busy with tools/test's other lanes, and a hang, the thing this catches, never ends.
    static let budget = Duration.seconds(5)
    static let bigBudget = Duration.seconds(30)

    /// A file to mutate, and for a timeline the graph it drives.
    struct Seed {
        let path: String
        let tree: FuzzJSON
        let graph: Graph?
    }

    static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name]
    }

    /// The graphs of graphs/ and the valid fixtures, and the timelines with their graphs.
    static func seeds() throws -> [Seed] {
        let registry = NodeRegistry(BuiltinNodes.types)
        var seeds: [Seed] = []
        for path in (Repository.graphFiles(in: "graphs") + Repository.graphFiles(in: "Tests/Fixtures/graphs/valid")).filter(TestSupport.loadsWithBuiltins) {
            let text = try #require(Repository.read(path))
            seeds.append(Seed(path: path, tree: try #require(FuzzJSON.parse(text), "\(path) is not JSON"), graph: nil))
        }
        let timelines = Repository.timelineFiles(in: "graphs").filter(TestSupport.loadsWithBuiltins).map { ($0, $0.replacing(".timeline.json", with: ".json")) } + [
            ("Tests/Fixtures/timelines/valid/every-action.json", "Tests/Fixtures/graphs/valid/sessions.json"),
            ("Tests/Fixtures/timelines/valid/engine-actions.json", "Tests/Fixtures/graphs/valid/inter-app-audio.json"),
        ]
        for (timeline, graphPath) in timelines {
            let text = try #require(Repository.read(timeline))
            let graph = try #require(TestSupport.load(graphPath, registry: registry).graph, "\(graphPath) does not load")
            seeds.append(Seed(path: timeline, tree: try #require(FuzzJSON.parse(text)), graph: graph))
        }
        return seeds
    }

    /// What one load gave, in a form that two loads can be compared by.
    struct Outcome: Equatable {
        let accepted: Bool
        let diagnostics: [Diagnostic]
    }

    static func load(_ text: String, file: String, graph: Graph?) -> Outcome {
        if let graph {
            let result = TimelineFile.load(text: text, file: file, graph: graph)
            return Outcome(accepted: result.entries != nil, diagnostics: result.diagnostics)
        }
        let result = GraphFile.load(text: text, file: file, registry: NodeRegistry(BuiltinNodes.types))
        return Outcome(accepted: result.graph != nil, diagnostics: result.diagnostics)
    }

    /// Whether `pointer` is an RFC 6901 JSON pointer.
    static func isPointer(_ pointer: String) -> Bool {
        guard pointer.isEmpty || pointer.hasPrefix("/") else { return false }
        let text = Array(pointer.unicodeScalars)
        for (index, scalar) in text.enumerated() where scalar == "~" {
            guard index + 1 < text.count, text[index + 1] == "0" || text[index + 1] == "1" else { return false }
        }
        return true
    }

    /// Whether `text` is strict JSON, the standard for "syntactically valid".
    static func isValidJSON(_ text: String) -> Bool {
        FuzzJSON.parse(text) != nil
    }

    /// What is wrong with an outcome, or nothing.
    static func problems(_ outcome: Outcome, validJSON: Bool) -> [String] {
        var problems: [String] = []
        let errors = outcome.diagnostics.filter(\.isError)
        if !outcome.accepted, errors.isEmpty { problems.append("rejected without an error") }
        if outcome.accepted, !errors.isEmpty { problems.append("accepted with errors") }
        for diagnostic in outcome.diagnostics {
            if diagnostic.message.isEmpty { problems.append("an empty message: \(diagnostic.formatted)") }
            if !isPointer(diagnostic.pointer) { problems.append("not a JSON pointer: \(diagnostic.formatted)") }
            if let line = diagnostic.line, line < 1 { problems.append("line below 1: \(diagnostic.formatted)") }
            if let column = diagnostic.column, column < 1 { problems.append("column below 1: \(diagnostic.formatted)") }
            if diagnostic.column != nil, diagnostic.line == nil { problems.append("a column without a line: \(diagnostic.formatted)") }
            if validJSON, diagnostic.line == nil || diagnostic.column == nil {
                problems.append("valid JSON, but unlocated: \(diagnostic.formatted)")
            }
            if validJSON, diagnostic.code == .syntax { problems.append("valid JSON, but a syntax error: \(diagnostic.formatted)") }
        }
        return problems
    }

    /// A short, printable excerpt of an input for failure messages.
    static func excerpt(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let head = String(String.UnicodeScalarView(scalars.prefix(300)))
        return (head + (scalars.count > 300 ? "… (\(scalars.count) scalars)" : "")).debugDescription
    }

    @Test("mutated graphs and timelines are accepted, or rejected with located errors")
    func mutatedFiles() throws {
        let count = Self.environment("IAA_FUZZ_COUNT").flatMap { Int($0) } ?? Self.defaultCount
        try fuzz(name: "graph fuzz", count: count, seedOffset: 0, mutator: GraphMutator(heavyPercent: 0))
    }

    /// Megabyte strings, 10,000-deep nesting, thousands of apps: fewer inputs, since each takes
    /// up to a second in a debug build.
    @Test("big mutated graphs and timelines load in time")
    func bigFiles() throws {
        let count = Self.environment("IAA_FUZZ_BIG_COUNT").flatMap { Int($0) } ?? Self.defaultBigCount
        try fuzz(name: "big graph fuzz", count: count, seedOffset: 1, mutator: GraphMutator(heavyPercent: 100))
    }

    /// Runs `count` inputs of `mutator`, with the run seed plus `seedOffset`.
    func fuzz(name: String, count: Int, seedOffset: UInt64, mutator: GraphMutator) throws {
        let seed = (Self.environment("IAA_FUZZ_SEED").flatMap { UInt64($0) } ?? Self.defaultSeed) &+ seedOffset
        let only = Self.environment("IAA_FUZZ_ONLY").flatMap { Int($0) }
        let trace = Self.environment("IAA_FUZZ_TRACE") != nil
        let seeds = try Self.seeds()
        let worker = FuzzWorker(stackSize: 512 << 10)
        defer { worker.stop() }
        let clock = ContinuousClock()
        let started = clock.now
        var residentAtStart: Int?
        var failures = 0, accepted = 0, heavy = 0
        var slowest: (duration: Duration, index: Int) = (.zero, 0)
        for index in 0..<count where only == nil || only == index {
            // Memory is measured after a warm-up, so that caches filled once do not count.
            if index == min(200, count / 5) { residentAtStart = residentBytes() }
            var random = FuzzRandom(seed: FuzzRandom.inputSeed(run: seed, index: index))
            let source = random.pick(seeds)
            let input = mutator.mutate(source.tree, random: &random)
            if input.heavy { heavy += 1 }
            let file = random.chance(5) ? "fuzz.yaml" : "fuzz.json"
            let place = "\(name) seed \(seed), input \(index) (IAA_FUZZ_SEED=\(seed &- seedOffset) IAA_FUZZ_ONLY=\(index)), from \(source.path) as \(file), mutations \(input.mutations)"
            if trace { print("\(name): \(place)") }
            var outcomes: [Outcome] = []
            for _ in 0..<2 {
                let box = FuzzBox<Outcome>()
                let text = input.text, graph = source.graph
                let before = clock.now
                let budget = text.utf8.count > 100_000 ? Self.bigBudget : Self.budget
                guard worker.run(budget: budget, { box.value = Self.load(text, file: file, graph: graph) }) else {
                    Issue.record("hang: over \(budget) for \(place): \(Self.excerpt(input.text))")
                    return
                }
                let elapsed = clock.now - before
                if elapsed > slowest.duration { slowest = (elapsed, index) }
                outcomes.append(try #require(box.value))
            }
            if outcomes[0].accepted { accepted += 1 }
            var problems = Self.problems(outcomes[0], validJSON: file == "fuzz.json" && Self.isValidJSON(input.text))
            if outcomes[0] != outcomes[1] { problems.append("two loads differ") }
            if !problems.isEmpty {
                failures += 1
                if failures <= 20 {
                    Issue.record("\(problems.joined(separator: "; ")) — \(place): \(Self.excerpt(input.text))")
                }
            }
        }
        let elapsed = clock.now - started
        print("\(name): seed \(seed), \(count) inputs (\(heavy) heavy, \(accepted) accepted) in \(elapsed); slowest input \(slowest.index) took \(slowest.duration); \(failures) failed")
        #expect(failures == 0, "\(failures) inputs failed (seed \(seed))")
        if let residentAtStart, let residentAtEnd = residentBytes() {
            let growth = residentAtEnd - residentAtStart
            print("\(name): resident memory \(residentAtStart >> 20) MB after warm-up, \(residentAtEnd >> 20) MB at the end")
            #expect(growth < 128 << 20, "resident memory grew by \(growth >> 20) MB over the run (seed \(seed))")
        }
    }
}
