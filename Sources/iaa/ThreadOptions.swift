import ArgumentParser
import RenderCore

/// `--threads N` and `--split`, for `run` and `render`: the threads a cycle may be split across,
/// and when it is (docs/parallel.md).
struct ThreadOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Threads a cycle may run on, JACK's (or the render's) own included: 0 for one per core (at most \(RenderCrew.maximumWorkers + 1)), 1 for one thread. A cycle is split only when its measured work makes it pay (docs/parallel.md).",
                               valueName: "N"))
    var threads = 0

    @Option(help: ArgumentHelp("When a cycle is split across the threads: auto (when its measured work makes it pay) or always (every cycle that can be, whatever it costs: to test and measure).",
                               valueName: "auto|always"))
    var split: CycleSplitting = .whenItPays

    func validate() throws {
        let most = RenderCrew.maximumWorkers + 1
        guard (0...most).contains(threads) else {
            throw ValidationError("--threads must be from 0 (one per core) to \(most), not \(threads)")
        }
    }

    /// The threads asked for, with 0 made one per core.
    var count: Int { threads == 0 ? RenderCrew.automaticThreads : threads }
}

extension CycleSplitting: ExpressibleByArgument {}
