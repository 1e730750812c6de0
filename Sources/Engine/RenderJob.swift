import AudioFiles
import AudioGraph
import OfflineBackend

/// `iaa render`: the same plan as `iaa run`, driven offline into an audio file.
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
    }

    /// Renders and says what it did; `progress` gets the fraction done.
    public func run(progress: (Double) -> Void) throws -> Summary {
        let loaded = GraphLoading.load(graphPath)
        guard let graph = loaded.graph else {
            throw EngineError(code: .invalidGraph, message: GraphLoading.report(loaded))
        }
        let channels = try playbackChannels(graph)
        let backend = OfflineBackend(sampleRate: Double(sampleRate), blockSize: blockSize,
                                     probe: RealtimeProbe.fromEnvironment())
        let builder = PlanBuilder(sampleRate: Double(sampleRate), maximumFrames: blockSize)
        let plan = try builder.plan(for: graph)
        PlanBuilder.warmUp(plan)
        backend.install(plan)
        let frames = Int((seconds * Double(sampleRate)).rounded())
        do {
            try OfflineRender(backend: backend, channels: channels).render(frames: frames, to: outputPath,
                                                                          format: format, progress: progress)
        } catch let error as AudioFileError {
            throw EngineError(code: .io, message: "\(error)")
        }
        return Summary(frames: frames, cycles: backend.cycleCount, probeCounts: backend.probeCounts)
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
