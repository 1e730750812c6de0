import CThreadNotes
import NodeKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A compiled graph: flat tables the audio thread walks every cycle, with every buffer preallocated.
///
/// Built and freed on the control side; the audio thread only reads it (and writes the buffers and
/// `externalInputs` it owns during a cycle). Steps are in topological order.
public final class RenderPlan: @unchecked Sendable {
    /// Increases with every published plan, so the control side knows when an old one is unused.
    public let generation: UInt64
    public let sampleRate: Double
    public let maximumFrames: Int

    let steps: UnsafeMutableBufferPointer<RenderStep>
    /// True when some steps form a wave of isolated apps (`RenderStep.waveEnd`).
    let hasWaves: Bool
    let inputs: UnsafeMutableBufferPointer<InputMix>
    let sources: UnsafeMutableBufferPointer<MixSource>
    /// The pointer each node reads each input from: each input's `quietPointer` while no outside
    /// signal is connected, rewritten per cycle by the mixing phase while one is.
    let inputPointers: UnsafeMutableBufferPointer<UnsafePointer<Float>>
    /// The inputs (indices into `inputs`) whose sources are summed or scaled every cycle, each
    /// step's in one range (`RenderStep.mixStart`).
    let mixedInputs: UnsafeMutableBufferPointer<Int32>
    /// Audio thread only: true after a cycle that heard an outside signal left `inputPointers`
    /// pointing elsewhere than their quiet buffers (restored by the next quiet cycle).
    let inputPointersMoved: UnsafeMutablePointer<Bool>
    let outputPointers: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>
    /// Per exposed input port: the outside buffer for this cycle, or nil when nothing is connected.
    /// The backend writes it at the start of the cycle.
    public let externalInputs: UnsafeMutableBufferPointer<UnsafePointer<Float>?>
    /// Per exposed output port: the app output buffer the backend copies out after rendering.
    public let externalOutputs: UnsafeMutableBufferPointer<UnsafePointer<Float>>
    /// The ports to expose, inputs first (matching `externalInputs`), then outputs.
    public let externalPorts: [ExternalPort]
    /// One opaque handle per `externalPorts` entry for the backend's own port records. The backend
    /// fills it before publishing the plan; the audio thread then reads it.
    public let backendHandles: UnsafeMutableBufferPointer<UnsafeMutableRawPointer?>
    /// One MIDI buffer per app with a MIDI input; the backend fills them at the start of a cycle.
    public let midiBuffers: UnsafeMutableBufferPointer<MIDIBuffer>
    private let midiIndexOfApp: [String: Int]
    /// For each exposed MIDI port (after the audio ports in `externalPorts`), the MIDI buffer it
    /// feeds: a flat table the audio thread can read.
    public let externalMIDITargets: UnsafeMutableBufferPointer<Int>
    /// Per step (topological order): the last cycle's processing time in nanoseconds, and since
    /// the control side last took them, the output peak (Float bits) and the energy: the sum over
    /// frames of the outputs' mean square (Float bits, high half) with the number of frames (low
    /// half), one word so a reader never sees one without the other. Written by the audio thread
    /// only while metering (``StepMeter``).
    let meterTimes: UnsafeMutablePointer<Atomic<UInt64>>
    let meterPeaks: UnsafeMutablePointer<Atomic<UInt32>>
    let meterEnergies: UnsafeMutablePointer<Atomic<UInt64>>
    private let stepOfApp: [String: Int]
    /// The app ids in step order (C strings) and the step being rendered (`iaa_thread_notes.h`):
    /// the control side names the app a stalled cycle is stuck in, and a crash in a node is named
    /// by a signal handler on the rendering thread.
    let stepNote: UnsafeMutablePointer<iaa_step_note>
    let silence: UnsafeMutablePointer<Float>
    private let arena: UnsafeMutableRawPointer
    /// Keeps every slot alive while this plan may still run.
    let slots: [NodeSlot]
    /// Control-side lookup of each app output's buffer, by app id and port name.
    private let outputBuffers: [String: UnsafeMutablePointer<Float>]
    /// The compensated connections' delay steps, each step's in one range (`RenderStep.delayStart`).
    let delays: UnsafeMutableBufferPointer<DelayStep>
    /// The latency this plan was compiled for: each app's own, and the delays it applies.
    public let latency: GraphLatency
    /// The paths between its exposed ports, for what the backend tells JACK of their latency.
    public let latencyPaths: LatencyPaths
    /// Keeps the compensation lines alive while this plan may still run.
    let lines: [CompensationLine]
    /// Which steps wait for which, for a cycle split across threads (docs/parallel.md).
    let schedule: StepSchedule
    /// Set by the control side when splitting this plan's cycles pays (`updateSplit`).
    private let splits = Atomic<Bool>(false)
    /// Leader only: cycles rendered, so that one in `sampleInterval` times each step's cost.
    private let renderedCycles: UnsafeMutablePointer<Int>
    /// Cycles whose steps' costs were sampled, counted by the leader after each.
    private let sampledCycles = Atomic<Int>(0)
    /// Control side: each step's cost as the split decision sees it (ns; 0 before a sample) and
    /// the samples folded into it.
    private var costEstimates: [Double] = []
    private var foldedSamples = 0
    public static let sampleInterval = 256

    package init(generation: UInt64, sampleRate: Double, maximumFrames: Int, tables: PlanTables, slots: [NodeSlot]) {
        self.generation = generation
        self.sampleRate = sampleRate
        self.maximumFrames = maximumFrames
        steps = tables.steps
        hasWaves = tables.steps.contains { $0.waveEnd >= 0 }
        inputs = tables.inputs
        sources = tables.sources
        inputPointers = tables.inputPointers
        mixedInputs = tables.mixedInputs
        inputPointersMoved = .allocate(capacity: 1)
        inputPointersMoved.initialize(to: false)
        outputPointers = tables.outputPointers
        externalInputs = tables.externalInputs
        externalOutputs = tables.externalOutputs
        externalPorts = tables.externalPorts
        backendHandles = .allocate(capacity: tables.externalPorts.count)
        backendHandles.initialize(repeating: nil)
        let stepCount = max(tables.steps.count, 1)
        meterTimes = .allocate(capacity: stepCount)
        meterPeaks = .allocate(capacity: stepCount)
        meterEnergies = .allocate(capacity: stepCount)
        for index in 0..<stepCount {
            (meterTimes + index).initialize(to: Atomic(0))
            (meterPeaks + index).initialize(to: Atomic(0))
            (meterEnergies + index).initialize(to: Atomic(0))
        }
        let names = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(tables.steps.count, 1))
        for index in tables.steps.indices {
            (names + index).initialize(to: UnsafePointer(strdup(tables.steps[index].slot._withUnsafeGuaranteedRef { $0.appID })))
        }
        stepNote = .allocate(capacity: 1)
        stepNote.initialize(to: iaa_step_note(names: UnsafePointer(names), count: tables.steps.count, step: -1))
        schedule = StepSchedule(steps: tables.steps.count, connections: tables.stepConnections,
                                phased: slots.contains(where: \.isPhased), names: UnsafePointer(names))
        renderedCycles = .allocate(capacity: 1)
        renderedCycles.initialize(to: 0)
        stepOfApp = Dictionary(uniqueKeysWithValues: tables.steps.indices.map { index in
            (tables.steps[index].slot.takeUnretainedValue().appID, index)
        })
        midiBuffers = tables.midiBuffers
        midiIndexOfApp = tables.midiIndexOfApp
        let midiPorts = tables.externalPorts.filter { $0.kind == .midi }
        let targets = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(midiPorts.count, 1))
        for (index, port) in midiPorts.enumerated() { targets.initializeElement(at: index, to: port.midiIndex) }
        externalMIDITargets = UnsafeMutableBufferPointer(rebasing: targets[0..<midiPorts.count])
        silence = tables.silence
        arena = tables.arena
        outputBuffers = tables.outputBuffers
        delays = tables.delays
        latency = tables.latency
        latencyPaths = tables.latencyPaths
        lines = tables.lines
        self.slots = slots
    }

    deinit {
        steps.deallocate()
        inputs.deallocate()
        sources.deallocate()
        inputPointers.deallocate()
        mixedInputs.deallocate()
        inputPointersMoved.deallocate()
        outputPointers.deallocate()
        externalInputs.deallocate()
        externalOutputs.deallocate()
        backendHandles.deallocate()
        for buffer in midiBuffers { buffer.events.deallocate() }
        midiBuffers.deallocate()
        externalMIDITargets.deallocate()
        let names = UnsafeMutablePointer(mutating: stepNote.pointee.names)
        for index in steps.indices { free(UnsafeMutablePointer(mutating: names?[index])) }
        names?.deallocate()
        stepNote.deallocate()
        schedule.deallocate()
        renderedCycles.deallocate()
        meterTimes.deinitialize(count: max(steps.count, 1))
        meterTimes.deallocate()
        meterPeaks.deinitialize(count: max(steps.count, 1))
        meterPeaks.deallocate()
        meterEnergies.deinitialize(count: max(steps.count, 1))
        meterEnergies.deallocate()
        arena.deallocate()
        delays.deallocate()
    }

    /// The buffer holding app `appID`'s output `port` after each cycle (control side lookup).
    public func outputBuffer(app appID: String, port: String) -> UnsafePointer<Float>? {
        outputBuffers["\(appID):\(port)"].map { UnsafePointer($0) }
    }

    /// True when some app now reports another latency than this plan was compiled for: a new
    /// plan then moves the alignment (the engines' `followLatency`). Control side.
    public var latencyChanged: Bool {
        slots.indices.contains { slots[$0].reportedLatency != latency.own[$0] }
    }

    /// Number of node steps, for status displays and tests.
    public var stepCount: Int { steps.count }

    /// `appID`'s processing time in the last metered cycle, and its output's peak and energy
    /// since the previous call; nil for an app this plan does not render. Control side.
    public func takeMeter(app appID: String) -> StepMeter? {
        guard let step = stepOfApp[appID] else { return nil }
        let nanos = meterTimes[step].load(ordering: .relaxed)
        let peak = Float(bitPattern: meterPeaks[step].exchange(0, ordering: .relaxed))
        let energy = meterEnergies[step].exchange(0, ordering: .relaxed)
        return StepMeter(seconds: Double(nanos) / 1e9, peak: peak, energy: Float(bitPattern: UInt32(truncatingIfNeeded: energy >> 32)),
                         frames: Int(UInt32(truncatingIfNeeded: energy)))
    }

    /// The app whose node the audio thread, or a worker of a split cycle, is running now, if any.
    /// Control side: meaningful when the cycle has been running far longer than a period (the
    /// node hangs).
    public var runningApp: String? {
        let notes = [stepNote] + (0..<RenderCrew.maximumWorkers).map { schedule.workerNotes + $0 }
        for note in notes {
            let step = iaa_noted_step(note)
            guard step >= 0, step < steps.count else { continue }
            return steps[step].slot._withUnsafeGuaranteedRef { $0.appID }
        }
        return nil
    }

    /// Whether the cycles of this plan are split across the crew's threads now.
    /// - Realtime: safe.
    public var isSplit: Bool { splits.load(ordering: .relaxed) }

    /// Leader: counts a cycle, and says whether it is one that times each step's cost.
    /// - Realtime: safe.
    @inline(__always)
    func samplesCostsThisCycle() -> Bool {
        guard schedule.splittable else { return false }
        renderedCycles.pointee &+= 1
        return renderedCycles.pointee % Self.sampleInterval == 1
    }

    /// Leader: the cycle that timed each step has ended.
    /// - Realtime: safe.
    func noteCostsSampled() { sampledCycles.add(1, ordering: .releasing) }

    /// Folds a new sample of each step's time into its estimate: a lower time is taken at once,
    /// a higher one an eighth of the way, so that a step the system preempted once (its time then
    /// counts the preemption) does not make a light graph look heavy. Control side.
    private func foldCostSamples() {
        let samples = sampledCycles.load(ordering: .acquiring)
        guard samples != foldedSamples else { return }
        foldedSamples = samples
        if costEstimates.isEmpty { costEstimates = Array(repeating: 0, count: steps.count) }
        for step in steps.indices {
            let sample = Double(meterTimes[step].load(ordering: .relaxed))
            let estimate = costEstimates[step]
            costEstimates[step] = estimate == 0 || sample < estimate ? sample : estimate + (sample - estimate) / 8
        }
    }

    /// Decides from the steps' sampled costs whether splitting this plan's cycles across
    /// `threads` threads pays (docs/parallel.md, "When it pays"); `periodNanoseconds` is nil
    /// offline. Returns the decision. Control side, any time.
    @discardableResult
    public func updateSplit(threads: Int, periodNanoseconds: Double?) -> Bool {
        guard schedule.splittable, threads > 1 else {
            splits.store(false, ordering: .relaxed)
            return false
        }
        foldCostSamples()
        guard !costEstimates.isEmpty else { return isSplit }
        let work = schedule.work { self.costEstimates[$0] }
        let pays = StepSchedule.pays(total: work.total, critical: work.critical, threads: threads,
                                     periodNanoseconds: periodNanoseconds, splitting: isSplit)
        splits.store(pays, ordering: .relaxed)
        return pays
    }

    /// Splits this plan's cycles whatever they cost, or stops (tests, and `--threads` with no
    /// automatic decision). Control side.
    public func forceSplit(_ on: Bool) {
        splits.store(on && schedule.splittable, ordering: .relaxed)
    }

    /// The index of `appID`'s MIDI buffer, if it has a MIDI input (control side lookup).
    public func midiBufferIndex(app appID: String) -> Int? { midiIndexOfApp[appID] }

    /// The slots of the apps this plan renders, in graph order (each knows its `appID`): for the
    /// control side's walks over every app, which `slot(for:)` per app would make quadratic.
    public var appSlots: [NodeSlot] { slots }

    /// The slot rendering `appID` in this plan.
    public func slot(for appID: String) -> NodeSlot? {
        slots.first { $0.appID == appID }
    }
}

/// The raw tables a `RenderPlan` takes ownership of.
package struct PlanTables {
    var steps: UnsafeMutableBufferPointer<RenderStep>
    var inputs: UnsafeMutableBufferPointer<InputMix>
    var sources: UnsafeMutableBufferPointer<MixSource>
    var inputPointers: UnsafeMutableBufferPointer<UnsafePointer<Float>>
    var mixedInputs: UnsafeMutableBufferPointer<Int32>
    var outputPointers: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>
    var externalInputs: UnsafeMutableBufferPointer<UnsafePointer<Float>?>
    var externalOutputs: UnsafeMutableBufferPointer<UnsafePointer<Float>>
    var externalPorts: [ExternalPort]
    var silence: UnsafeMutablePointer<Float>
    var arena: UnsafeMutableRawPointer
    var outputBuffers: [String: UnsafeMutablePointer<Float>]
    var midiBuffers: UnsafeMutableBufferPointer<MIDIBuffer>
    var midiIndexOfApp: [String: Int]
    var delays: UnsafeMutableBufferPointer<DelayStep>
    var latency: GraphLatency
    var latencyPaths: LatencyPaths
    var lines: [CompensationLine]
    /// Every connection as the steps it joins (step indices), for the split schedule.
    var stepConnections: [(from: Int, to: Int)]

    package init(steps: UnsafeMutableBufferPointer<RenderStep>, inputs: UnsafeMutableBufferPointer<InputMix>, sources: UnsafeMutableBufferPointer<MixSource>, inputPointers: UnsafeMutableBufferPointer<UnsafePointer<Float>>, mixedInputs: UnsafeMutableBufferPointer<Int32>, outputPointers: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>, externalInputs: UnsafeMutableBufferPointer<UnsafePointer<Float>?>, externalOutputs: UnsafeMutableBufferPointer<UnsafePointer<Float>>, externalPorts: [ExternalPort], silence: UnsafeMutablePointer<Float>, arena: UnsafeMutableRawPointer, outputBuffers: [String: UnsafeMutablePointer<Float>], midiBuffers: UnsafeMutableBufferPointer<MIDIBuffer>, midiIndexOfApp: [String: Int], delays: UnsafeMutableBufferPointer<DelayStep>, latency: GraphLatency, latencyPaths: LatencyPaths, lines: [CompensationLine], stepConnections: [(from: Int, to: Int)]) {
        self.steps = steps
        self.inputs = inputs
        self.sources = sources
        self.inputPointers = inputPointers
        self.mixedInputs = mixedInputs
        self.outputPointers = outputPointers
        self.externalInputs = externalInputs
        self.externalOutputs = externalOutputs
        self.externalPorts = externalPorts
        self.silence = silence
        self.arena = arena
        self.outputBuffers = outputBuffers
        self.midiBuffers = midiBuffers
        self.midiIndexOfApp = midiIndexOfApp
        self.delays = delays
        self.latency = latency
        self.latencyPaths = latencyPaths
        self.lines = lines
        self.stepConnections = stepConnections
    }
}
