import AudioGraph
import RenderCore
import GraphFormat
import BenchKit
import Foundation
import NodeKit
import Nodes
import OfflineBackend

/// Prints every benchmark as one table. `run.sh` builds it in release and preloads the
/// real-time counter so the allocation columns are filled.
///
///     iaa-bench [--quick]                      all tables
///     iaa-bench profile VOICES FRAMES CYCLES [engine|render|cold|scalar|vector]
///                                              only cycles, for callgrind (cold: caches
///                                              flushed between cycles, as live)
///     iaa-bench render [--quick]               only the render tables (run.sh runs them under the
///                                              allocation counter)
///     iaa-bench control [--quick]              only the control side (compile, publish, load, apply)
///     iaa-bench profile-load [TIMES]           only GraphFile.load of the 1 MB graph, for perf
///     iaa-bench profile-apply [TIMES]          only the one-connection apply to 1,000 apps, for perf
///     iaa-bench profile-delay CYCLES           only builtin:delay (defaults, 120 BPM), 128-frame
///                                              cycles, for callgrind
///     iaa-bench profile-synth CYCLES [saw]     only builtin:poly-synth holding a four-note chord
///                                              (sine, or saw), 128-frame cycles, for callgrind

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "profile-load" {
    let text = GraphGenerator.graphText(atLeast: 1 << 20).text
    for _ in 0..<(arguments.count > 1 ? Int(arguments[1]) ?? 3 : 3) {
        _ = GraphFile.load(text: text, file: "big.json", registry: NodeRegistry(BuiltinNodes.types))
    }
    exit(0)
}

if arguments.first == "profile-apply" {
    let apply = ApplyWorkload()
    for _ in 0..<(arguments.count > 1 ? Int(arguments[1]) ?? 3 : 3) { apply.run() }
    exit(0)
}

// Callgrind counts instructions exactly, so the difference between two CYCLES values divided by
// the frames between them is one node's cost per frame, free of the set-up around it.
if arguments.first == "profile-delay" || arguments.first == "profile-synth" {
    let cycles = arguments.count > 1 ? Int(arguments[1]) ?? 1_000 : 1_000
    let frames = 128
    if arguments.first == "profile-delay" {
        let kernel = try NodeKernel(DelayNode.nodeType, frames: frames)
        for _ in 0..<cycles { kernel.cycle() }
    } else {
        let saw: Float = arguments.count > 2 && arguments[2] == "saw" ? 1 : 0
        let kernel = try NodeKernel(PolySynthNode.nodeType, parameters: ["waveform": saw], frames: frames)
        let chord = [60, 64, 67, 71].map { MIDIEvent.noteOn(UInt8($0), velocity: 100) }
        chord.withUnsafeBufferPointer { kernel.cycle(midi: MIDIEvents(base: $0.baseAddress, count: $0.count)) }
        for _ in 1..<max(cycles, 1) { kernel.cycle() }
    }
    exit(0)
}

if arguments.first == "profile" {
    let numbers = arguments.dropFirst().prefix(3).compactMap { Int($0) }
    guard numbers.count == 3 else { fatalError("usage: iaa-bench profile VOICES FRAMES CYCLES [engine|render|cold|scalar|vector]") }
    let which = arguments.count > 4 ? arguments[4] : "engine"
    let (voices, frames, cycles) = (numbers[0], numbers[1], numbers[2])
    switch which {
    case "scalar", "vector":
        let reference = CReference(voices: voices, frames: frames)
        for _ in 0..<cycles { if which == "scalar" { reference.scalarCycle() } else { reference.vectorCycle() } }
    case "cold":
        // Live, the audio thread wakes with cold caches (jackd and the other clients ran since
        // its last cycle): write 8 MiB between cycles so that every cycle starts that way too.
        let engine = EngineRender(voices: voices, frames: frames)
        let junk = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 << 20)
        junk.initialize(repeating: 0, count: 1 << 20)
        var times: [UInt64] = []
        times.reserveCapacity(cycles)
        for cycle in 0..<cycles {
            for index in stride(from: 0, to: 1 << 20, by: 8) { junk[index] &+= UInt64(cycle) }
            let started = MonotonicClock.nanoseconds()
            engine.renderOnly()
            times.append(MonotonicClock.nanoseconds() - started)
        }
        times.sort()
        print("cold render: median \(times[times.count / 2]) ns, p10 \(times[times.count / 10]) ns per cycle")
    default:
        let engine = EngineRender(voices: voices, frames: frames)
        for _ in 0..<cycles { if which == "render" { engine.renderOnly() } else { engine.cycle() } }
    }
    exit(0)
}

let quick = arguments.contains("--quick")
let budget: Duration = quick ? .milliseconds(60) : .milliseconds(400)
let voiceCounts = [1, 10, 100, 1_000]
/// What the targets section at the end compares: per (voices, frames), engine and C AVX2 ns/vf.
var renderResults: [String: (engine: Double, vector: Double, mallocs: String, retains: String)] = [:]
var perStep: [Int: Double] = [:]
let frameCounts = [64, 128, 256]
let probe = RealtimeProbe.fromEnvironment()

func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", a / b) }

func row(_ cells: [String]) { print("| " + cells.joined(separator: " | ") + " |") }

// `iaa-bench control [--quick]`: only the control side, in a process without the allocation
// counter (run.sh runs the render tables under it, then this).
if arguments.first == "control" {
    controlSide()
    exit(0)
}

// MARK: Check that the engine and C render the same signal (so the ratios compare the same work).

do {
    let voices = 100, frames = 128
    let engine = EngineRender(voices: voices, frames: frames)
    let reference = CReference(voices: voices, frames: frames)
    let vector = CReference(voices: voices, frames: frames)
    var worst = 0.0, worstVector = 0.0, peak = 0.0
    for _ in 0..<20 {
        engine.cycle(); reference.scalarCycle(); vector.vectorCycle()
        for index in 0..<frames {
            peak = max(peak, Double(abs(engine.output[index])))
            worst = max(worst, Double(abs(engine.output[index] - reference.output[index])))
            worstVector = max(worstVector, Double(abs(engine.output[index] - vector.output[index])))
        }
    }
    print("check: 100 voices, 20 cycles of 128: bus peak \(f(peak, 3)), max |engine - C scalar| \(String(format: "%.1e", worst)), max |engine - C vector| \(String(format: "%.1e", worstVector))")
    if worst > peak * 1e-3 || worstVector > peak * 1e-3 { fatalError("engine and C reference disagree: not the same work") }
}

// MARK: 1 + 3. Render cost per cycle, engine vs C.

print("")
print("## Render: oscillator → gain → one-pole lowpass per voice, summed by a mixer tree (≤64 inputs per mixer), 48 kHz, release")
print("C vector path: \(CReference.hasAVX2 ? "AVX2+FMA" : "portable (no AVX2)"); engine kernels: \(Kernels.selected) (IAA_KERNELS=portable forces the baseline build). Times are medians of single cycles; ns/vf = ns per voice-frame.")
print("")
row(["voices", "apps", "frames", "engine ns/cycle", "p99", "ns/vf", "% of deadline", "render-only ns", "C scalar ns", "ns/vf", "C vector ns", "ns/vf", "engine/C", "engine/C-vec", "mallocs/cycle", "retains/cycle"])
row(Array(repeating: "---", count: 16))
for voices in voiceCounts {
    for frames in frameCounts {
        let engine = EngineRender(voices: voices, frames: frames)
        let engineStats = measure(budget: budget) { engine.cycle() }
        let renderStats = measure(budget: budget / 2) { engine.renderOnly() }
        let reference = CReference(voices: voices, frames: frames)
        let scalar = measure(budget: budget / 2) { reference.scalarCycle() }
        let vector = measure(budget: budget / 2) { reference.vectorCycle() }
        var mallocs = "n/a", retains = "n/a"
        if probe.isEnabled {
            let counted = EngineRender(voices: voices, frames: frames, probe: probe)
            for _ in 0..<10 { counted.cycle() }
            let cycles = 1_000
            if let before = counted.backend.probeCounts {
                for _ in 0..<cycles { counted.cycle() }
                if let after = counted.backend.probeCounts {
                    mallocs = f(Double(after.mallocs - before.mallocs) / Double(cycles), 2)
                    retains = f(Double(after.retains - before.retains) / Double(cycles), 2)
                }
            }
        }
        let voiceFrames = Double(voices * frames)
        let deadline = Double(frames) / sampleRate * 1e9
        renderResults["\(voices)x\(frames)"] = (engineStats.median / voiceFrames, vector.median / voiceFrames, mallocs, retains)
        row(["\(voices)", "\(engine.appCount)", "\(frames)",
             f(engineStats.median, 0), f(engineStats.p99, 0), f(engineStats.median / voiceFrames, 2),
             f(engineStats.median / deadline * 100, 2) + "%", f(renderStats.median, 0),
             f(scalar.median, 0), f(scalar.median / voiceFrames, 2),
             f(vector.median, 0), f(vector.median / voiceFrames, 2),
             ratio(engineStats.median, scalar.median), ratio(engineStats.median, vector.median),
             mallocs, retains])
    }
}
if !probe.isEnabled {
    print("(allocation columns need the counter: run through run.sh, or LD_PRELOAD=librtcounter.so IAA_RT_PROBE=1)")
}

// MARK: Per-step overhead: cycles of 1 frame, where DSP is almost nothing.

print("")
print("## Per-step overhead: 1-frame cycles (DSP ≈ 1 sample per node)")
print("")
row(["voices", "steps", "engine ns/cycle", "ns per step", "C scalar ns/cycle", "C ns per voice"])
row(Array(repeating: "---", count: 6))
for voices in [100, 1_000] {
    let engine = EngineRender(voices: voices, frames: 1)
    let stats = measure(budget: budget) { engine.cycle() }
    let reference = CReference(voices: voices, frames: 1)
    let scalar = measure(budget: budget / 2) { reference.scalarCycle() }
    perStep[voices] = stats.median / Double(engine.plan.stepCount)
    row(["\(voices)", "\(engine.plan.stepCount)", f(stats.median, 0), f(stats.median / Double(engine.plan.stepCount), 1),
         f(scalar.median, 0), f(scalar.median / Double(voices), 1)])
}

// MARK: The targets of issue 18, side by side from the tables above.

print("")
print("## Targets (issue 18): engine against the C AVX2 reference, same run")
print("")
row(["voices", "frames", "engine ns/vf", "C AVX2 ns/vf", "engine / C AVX2", "≤ 1.2×", "mallocs, retains per cycle"])
row(Array(repeating: "---", count: 7))
for voices in [100, 1_000] {
    for frames in frameCounts {
        guard let result = renderResults["\(voices)x\(frames)"] else { continue }
        let times = result.engine / result.vector
        row(["\(voices)", "\(frames)", f(result.engine, 2), f(result.vector, 2), f(times, 2) + "×",
             times <= 1.2 ? "met" : "not met", "\(result.mallocs), \(result.retains)"])
    }
}
print("")
for voices in [100, 1_000] {
    guard let nanoseconds = perStep[voices] else { continue }
    print("- per-step overhead, \(voices) voices in 1-frame cycles: \(f(nanoseconds, 1)) ns per step (target ≤ 10 ns): \(nanoseconds <= 10 ? "met" : "not met")")
}
if !CReference.hasAVX2 {
    print("- this CPU has no AVX2: the C reference ran its portable loop, so the ratios above are not the issue's")
}

// MARK: Each node's DSP alone, without the engine around it.

print("")
print("## Nodes alone, driven by hand (no plan, no slot, no guard), medians of 16 cycles")
print("")
print("`process`: a ProcessContext built and the node's process called, as a changing cycle does; steady")
print("cycle: the C call a settled cycle makes (the kernel and its state, the floor under the engine's rows).")
print("")
row(["node", "frames", "process ns/cycle", "steady cycle ns/cycle", "steady ns/frame"])
row(Array(repeating: "---", count: 5))
for frames in [1, 64, 128] {
    for (name, kernel) in NodeKernel.voiceNodes(frames: frames) {
        // 16 cycles per timing, so the clock read (about 27 ns) does not count.
        let process = measure(budget: budget / 2) { for _ in 0..<16 { kernel.cycle() } }
        let steady = measure(budget: budget / 2) { for _ in 0..<16 { kernel.steadyCycle() } }
        row([name, "\(kernel.frames)", f(process.median / 16, 0), f(steady.median / 16, 0),
             f(steady.median / 16 / Double(kernel.frames), 2)])
    }
}

// `iaa-bench render` stops here (run.sh measures the control side in a second process).
if arguments.first != "render" { controlSide() }
