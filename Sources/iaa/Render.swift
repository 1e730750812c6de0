import ArgumentParser
import AudioFiles
import AudioGraph
import Engine

/// `iaa render GRAPH -o OUT.wav -d 10s`: the same plan as `iaa run`, offline, into a file.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a graph offline into an audio file (no JACK needed).",
        discussion: """
            The file's channels are what the graph sends to @playback (or system:playback_N), as a \
            sound card would hear it; --port records chosen app outputs instead, one channel each.
            """)

    @Argument(help: "The graph file.", completion: .file(extensions: ["json"]))
    var graph: String

    @OptionGroup var logging: LogOptions

    @Option(name: .shortAndLong, help: "Output file (.wav, .flac, .aiff).")
    var output: String

    @Option(name: .shortAndLong, help: "Duration: 10, 10s, 2.5s or 500ms.")
    var duration: RenderDuration

    @Option(name: [.short, .customLong("rate")], help: "Sample rate in Hz.")
    var rate = 48_000

    @Option(name: [.short, .customLong("period")], help: "Frames per cycle, as JACK's -p.")
    var period = 256

    @Option(name: .long, help: "Channels of the playback bus.")
    var channels = 2

    @Option(name: .customLong("port"), help: "Record APP:PORT instead of the playback bus (repeatable).")
    var ports: [String] = []

    @Option(help: "A timeline of session actions to apply while rendering ({\"timeline\": [{\"at\": 1.5, \"do\": \"activate\", \"app\": \"nav\"}]}).",
            completion: .file(extensions: ["json"]))
    var timeline: String?

    @Option(help: "Write every action, event and state as JSON lines to this file (- for stdout).")
    var log: String?

    @Option(help: "Write each app's output, after its session gain, to DIR/APP.wav.", completion: .directory)
    var stems: String?

    @Option(help: ArgumentHelp("Where apps run when the graph does not say: process, none or auto (see docs/isolation.md).",
                               valueName: "auto|process|none"))
    var isolation: IsolationChoice = .auto

    @OptionGroup var threading: ThreadOptions

    @Option(help: "Sample format: float32, pcm24 or pcm16 (default: what the container holds best: float32 for .wav, pcm24 for .flac, .aiff and .ogg).")
    var format: Format?

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case float32, pcm24, pcm16
        var sampleFormat: SampleFormat {
            switch self {
            case .float32: return .float32
            case .pcm24: return .pcm24
            case .pcm16: return .pcm16
            }
        }
    }

    func validate() throws {
        guard (8_000...384_000).contains(rate) else { throw ValidationError("--rate \(rate) is outside 8000…384000 Hz") }
        guard (1...8192).contains(period) else { throw ValidationError("--period \(period) is outside 1…8192 frames") }
        guard (1...64).contains(channels) else { throw ValidationError("--channels \(channels) is outside 1…64") }
    }

    func run() throws {
        logging.apply()
        var job = RenderJob(graphPath: graph, outputPath: output, seconds: duration.seconds)
        job.sampleRate = rate
        job.blockSize = period
        job.channelCount = channels
        job.ports = ports
        job.format = format?.sampleFormat ?? AudioContainer(path: output)?.defaultSampleFormat ?? .float32
        job.timelinePath = timeline
        job.logPath = log
        job.stemsDirectory = stems
        job.isolation = isolation
        job.threads = threading.count
        job.splitting = threading.split
        let progress = Progress(seconds: duration.seconds, terminal: StandardError.isTerminal)
        do {
            let summary = try job.run(progress: progress.update)
            progress.finish()
            StandardError.write("iaa: wrote \(output) (\(summary.frames) frames, \(duration.seconds) s at \(rate) Hz)")
            if let counts = summary.probeCounts {
                StandardError.write("iaa: rt-probe: \(counts.mallocs) mallocs, \(counts.retains) retains on the audio thread in \(summary.cycles) cycles")
            }
        } catch let error as EngineError {
            progress.finish()
            StandardError.write(error.code == .invalidGraph ? error.message : "iaa: \(error)", level: .error)
            throw ExitCode(error.code.exitCode)
        }
    }
}

/// A duration argument: `10`, `10s`, `2.5s`, `500ms`.
struct RenderDuration: ExpressibleByArgument {
    let seconds: Double

    init?(argument: String) {
        let text = argument.lowercased()
        let value: Double?
        if text.hasSuffix("ms") { value = Double(text.dropLast(2)).map { $0 / 1000 } }
        else if text.hasSuffix("s") { value = Double(text.dropLast()) }
        else { value = Double(text) }
        guard let value, value.isFinite, value > 0, value <= 86_400 else { return nil }
        seconds = value
    }
}
