import AudioFiles
import AudioGraph
import RenderCore
import GraphFormat
import AudioSession
import Foundation
import Isolation
import OfflineBackend

/// `iaa render`: the same plan as `iaa run`, driven offline into an audio file, optionally with a
/// timeline of session actions applied sample-accurately, an event log and per-app stems.
public struct RenderJob {
    public var graphPath: String
    public var outputPath: String
    public var seconds: Double
    public var sampleRate: Int = 48_000
    public var blockSize: Int = 256
    public var channelCount: Int = 2
    /// `--port APP:PORT`: record these ports (one channel each) instead of what goes to playback.
    public var ports: [String] = []
    public var format: SampleFormat = .float32
    /// `--timeline`: timed session actions.
    public var timelinePath: String?
    /// `--log`: where the JSON-lines log goes.
    public var logPath: String?
    /// `--stems`: a directory for one file per app.
    public var stemsDirectory: String?
    /// `--isolation`: where apps run when the graph does not say (docs/isolation.md).
    public var isolation: IsolationChoice = .auto
    /// `--threads`: threads a cycle may run on, this one included (docs/parallel.md).
    public var threads = 1
    /// `--split`: when cycles are split across them.
    public var splitting = CycleSplitting.whenItPays

    public init(graphPath: String, outputPath: String, seconds: Double) {
        self.graphPath = graphPath
        self.outputPath = outputPath
        self.seconds = seconds
    }

    /// What the render did.
    public struct Summary {
        public let frames: Int
        public let cycles: Int
        /// The real-time counter's totals when IAA_RT_PROBE=1 and the counter is preloaded.
        public let probeCounts: (mallocs: Int, retains: Int)?
        /// The log's lines (also written to `logPath` when set).
        public let log: [String]
    }

    /// Renders and says what it did; `progress` gets the fraction done.
    public func run(progress: (Double) -> Void) throws -> Summary {
        let loaded = GraphLoading.load(graphPath)
        guard let graph = loaded.graph else {
            throw EngineError(code: .invalidGraph, message: GraphLoading.report(loaded))
        }
        let timeline = try loadTimeline(graph)
        let channels = try playbackChannels(graph)
        let backend: OfflineBackend
        do {
            backend = try OfflineBackend(sampleRate: Double(sampleRate), blockSize: blockSize,
                                         probe: RealtimeProbe.fromEnvironment(), threads: threads,
                                         splitting: splitting)
        } catch {
            throw EngineError(code: .io, message: "cannot render on \(threads) threads: \(error)")
        }
        let builder = PlanBuilder(sampleRate: Double(sampleRate), maximumFrames: blockSize,
                                  gainRampSeconds: graph.policy.rampSeconds)
        // Offline is not real-time: a child gets a fixed second per cycle, so a slow machine is
        // not taken for a hung child, while a hang still ends.
        var isolationPolicy = IsolationPolicy.fromEnvironment(engineDefault: isolation)
        isolationPolicy.settings.fixedTimeoutNanoseconds = 1_000_000_000
        let settings = isolationPolicy.settings
        builder.instances.nodeFactory = isolationPolicy.nodeFactory(graph: graph.isolation) { event in
            if case .faulted(let fault, let restartIn) = event.kind {
                let next = restartIn.map { "restarting in \($0) s" } ?? "it stays off"
                StandardError.warning("app \"\(event.app)\" is silent: \(fault.reason(settings: settings)); \(next)")
            }
        }
        let engine = try OfflineEngine(graph: graph, backend: backend, builder: builder)
        backend.setTempo(graph.transport.tempo, beatsPerBar: graph.transport.beatsPerBar)
        backend.setPlaying(graph.transport.playing)

        var scenario = Scenario(entries: timeline, engine: engine, log: SessionLog(sampleRate: Double(sampleRate)))
        let frames = Int((seconds * Double(sampleRate)).rounded())
        do {
            let recorder = try PlaybackRecorder(path: outputPath, channels: channels, sampleRate: sampleRate,
                                                format: format, maximumFrames: blockSize)
            if let stemsDirectory {
                try FileManager.default.createDirectory(atPath: stemsDirectory, withIntermediateDirectories: true)
            }
            let stems = try stemsDirectory.map { directory throws(AudioFileError) in
                try StemRecorder(directory: directory, apps: graph.apps.map { ($0.id, $0.layout.outputs.map(\.name)) }, sampleRate: sampleRate, format: format)
            }
            if !timeline.isEmpty || logPath != nil { scenario.logStart() }
            var done = 0
            while done < frames {
                try scenario.applyDue(atFrame: done)
                try engine.followLatency(at: Double(done) / Double(sampleRate))
                let count = min(blockSize, frames - done, scenario.framesUntilNext(from: done))
                guard let rendered = backend.renderCycle(frames: count) else { break }
                try recorder.record(rendered, frames: count)
                try stems?.record(rendered, frames: count)
                done += count
                progress(Double(done) / Double(frames))
            }
            try recorder.close()
            try stems?.close()
        } catch let error as EngineError {
            throw error
        } catch let error as AudioFileError {
            throw EngineError(code: .io, message: "\(error)")
        } catch {
            throw EngineError(code: .nodeCreationFailed, message: "\(error)")
        }
        // Children end before the summary, so a fault of the last cycles is on stderr too.
        for slot in engine.firstPlan.appSlots { (slot.anyNode as? IsolatedNode)?.shutDown() }
        if let logPath { try writeLog(scenario.log.lines, to: logPath) }
        return Summary(frames: frames, cycles: backend.cycleCount, probeCounts: backend.probeCounts, log: scenario.log.lines)
    }

    private func loadTimeline(_ graph: Graph) throws -> [TimelineEntry] {
        guard let timelinePath else { return [] }
        let result = TimelineFile.load(path: timelinePath, graph: graph, registry: GraphLoading.registry)
        guard let entries = result.entries else {
            throw EngineError(code: .invalidGraph, message: result.diagnostics.map(\.formatted).joined(separator: "\n"))
        }
        return entries
    }

    private func writeLog(_ lines: [String], to path: String) throws {
        let text = lines.map { $0 + "\n" }.joined()
        if path == "-" {
            print(text, terminator: "")
            return
        }
        guard let file = fopen(path, "w") else {
            throw EngineError(code: .io, message: "cannot write the log to \(path): \(String(cString: strerror(errno)))",
                              hint: "check that the directory exists and is writable")
        }
        defer { fclose(file) }
        fputs(text, file)
    }

    /// Where each channel of the file comes from: `--port`s, else the graph's playback connections.
    func playbackChannels(_ graph: Graph) throws -> PlaybackChannels {
        if !ports.isEmpty {
            return .ports(try ports.map { try reference($0, in: graph) })
        }
        guard let channels = PlaybackChannels.of(graph, channelCount: channelCount) else {
            throw EngineError(code: .usage, message: "\(graphPath): nothing in the graph goes to @playback or system:playback_N, so there is nothing to render",
                              hint: "add a jack connection to \"@playback\", or name ports to record: --port APP:PORT")
        }
        return channels
    }

    func reference(_ text: String, in graph: Graph) throws -> PlaybackChannels.PortReference {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let index = graph.appIndex(parts[0]) else {
            throw EngineError(code: .usage, message: "--port \(text): no app \"\(parts.first ?? text)\" in the graph",
                              hint: "apps: \(graph.apps.map(\.id).joined(separator: ", "))")
        }
        let outputs = graph.apps[index].layout.outputs.map(\.name)
        guard outputs.contains(parts[1]) else {
            throw EngineError(code: .usage, message: "--port \(text): app \"\(parts[0])\" has no output \"\(parts[1])\"",
                              hint: "outputs: \(outputs.joined(separator: ", "))")
        }
        return PlaybackChannels.PortReference(app: parts[0], port: parts[1])
    }
}
