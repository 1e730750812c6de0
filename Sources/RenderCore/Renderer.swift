import CKernels
import CThreadNotes
import NodeKit

/// Renders one cycle of a plan: for each step, mix its inputs, then run its node.
public enum Renderer {
    /// Renders `context.frames` frames (at most `plan.maximumFrames`, which the caller checks).
    /// The backend has filled `plan.externalInputs` for this cycle. Steps are timed only while
    /// metering (`iaa top`), while `deadline` is on, or on the cycles that sample each step's cost
    /// for the split decision; with a `crew` and a plan the control side split, the steps run on
    /// the crew's threads too (docs/parallel.md). Returns how many nodes the deadline faulted.
    /// - Realtime: safe.
    @discardableResult
    public static func render(_ plan: borrowing RenderPlan, _ context: RenderContext, metering: Bool = false,
                              deadline: DeadlineCheck = .off, crew: CrewHandle? = nil,
                              probe: RealtimeProbe = .disabled) -> Int {
        let outside = hearsOutsideSignal(plan)
        if !outside && plan.inputPointersMoved.pointee { restoreQuietPointers(plan) }
        plan.inputPointersMoved.pointee = outside
        let timing = StepTiming(metering: metering, deadline: deadline.budget > 0,
                                sampling: crew != nil && plan.samplesCostsThisCycle())
        iaa_note_rendering(plan.stepNote)
        let tripped: Int
        if let crew, plan.isSplit {
            tripped = renderSplit(plan, CrewJob(plan: .passUnretained(plan), context: context, timing: timing,
                                                deadline: deadline, outside: outside, probe: probe), crew: crew)
        } else {
            tripped = renderSteps(plan, context, timing: timing, deadline: deadline, outside: outside)
        }
        iaa_note_step(plan.stepNote, -1)
        iaa_note_rendering(nil)
        if timing.sampling { plan.noteCostsSampled() }
        return tripped
    }

    /// Mixes each step's inputs and runs its node, in plan order; the plan's waves of isolated
    /// apps each at once (`renderWave`) unless steps are timed.
    /// Out of line: inlined into `render`, the same loop took 4 more instructions per step
    /// (callgrind, `iaa-bench profile 100 1 N render`).
    /// - Realtime: safe.
    @inline(never)
    static func renderSteps(_ plan: borrowing RenderPlan, _ context: RenderContext, timing: StepTiming,
                            deadline: DeadlineCheck, outside: Bool) -> Int {
        // Known once per cycle: a plan of apps in process (most) skips the wave checks below.
        let waves = plan.hasWaves
        var tripped = 0
        var waveEnd = 0
        for index in 0..<min(prefetchDistance, plan.steps.count) { prefetch(plan.steps[index]) }
        for stepIndex in plan.steps.indices {
            if waves {
                // Steps of a wave already rendered; a wave starting here (never while steps are
                // timed: each is then timed alone).
                if stepIndex < waveEnd { continue }
                let step = plan.steps[stepIndex]
                if step.waveEnd >= 0 && !timing.timed {
                    waveEnd = Int(step.waveEnd)
                    renderWave(plan, from: stepIndex, to: waveEnd, context, outside: outside)
                    continue
                }
            }
            if stepIndex + prefetchDistance < plan.steps.count { prefetch(plan.steps[stepIndex + prefetchDistance]) }
            if renderStep(plan, stepIndex, context, note: plan.stepNote, timing: timing, deadline: deadline,
                          outside: outside) {
                tripped += 1
            }
        }
        return tripped
    }

    /// Mixes one step's inputs and runs its node, timing it as `timing` says; true when the
    /// deadline guard faulted the node.
    /// - Realtime: safe.
    @inline(__always)
    static func renderStep(_ plan: borrowing RenderPlan, _ stepIndex: Int, _ context: RenderContext,
                           note: UnsafeMutablePointer<iaa_step_note>, timing: StepTiming, deadline: DeadlineCheck,
                           outside: Bool) -> Bool {
        let step = plan.steps[stepIndex]
        let frames = context.frames
        let started = timing.timed ? MonotonicClock.nanoseconds() : 0
        prepareInputs(plan, step, frames: frames, outside: outside)
        iaa_note_step(note, stepIndex)
        let (inputs, outputs) = buffers(plan, step)
        step.slot._withUnsafeGuaranteedRef { slot in
            // Nearly every cycle of a built-in node: its steady cycle (no MIDI to look up).
            if slot.renderSteady(inputs: inputs, outputs: outputs, outputCount: Int(step.outputCount),
                                 frames: frames) { return }
            slot.run(context, inputs: inputs, inputCount: Int(step.inputCount), outputs: outputs,
                     outputCount: Int(step.outputCount), midi: midiEvents(plan, step))
        }
        guard timing.timed else { return false }
        let elapsed = MonotonicClock.nanoseconds() &- started
        if timing.metering || timing.sampling { plan.meterTimes[stepIndex].store(elapsed, ordering: .relaxed) }
        if timing.metering { meter(plan, step: stepIndex, frames: frames) }
        return deadline.budget > 0 && step.slot._withUnsafeGuaranteedRef { $0.noteStepTime(elapsed, deadline) }
    }

    /// How many steps ahead the renderer asks for a step's memory. A cycle starts with cold caches
    /// (jackd and other clients ran since the last one), so without it every step waits for its
    /// slot, then its node, then its ramps, one miss after the other. Four steps (28 lines) keeps
    /// several misses in flight without pushing out what the running step uses; not tuned
    /// further on this noisy VM.
    static let prefetchDistance = 4

    /// Asks for the lines a step's `run` reads first: the slot (a settled cycle reads its first
    /// two lines, `NodeSlot`'s first fields), the node object and the parameter ramps.
    /// - Realtime: safe.
    @inline(__always)
    static func prefetch(_ step: RenderStep) {
        iaa_prefetch(UnsafeRawPointer(step.slot.toOpaque()), 2)
        iaa_prefetch(step.node, 2)
        iaa_prefetch(step.ramps, 1)
    }

    /// Adds a step's output to its meter (`iaa top`, the `meters` stream): the peak, and the
    /// outputs' mean square summed over frames. The control side takes both with an exchange, so
    /// each is added with a compare-exchange that starts again from zero when it was taken
    /// meanwhile (a cycle's level is never counted twice, nor lost).
    /// - Realtime: safe.
    @inline(never)
    static func meter(_ plan: borrowing RenderPlan, step index: Int, frames: Int) {
        let step = plan.steps[index]
        var peak: Float = 0
        var squares: Float = 0
        for output in Int(step.outputStart)..<Int(step.outputStart + step.outputCount) {
            let buffer = plan.outputPointers[output]
            for frame in 0..<frames {
                let sample = buffer[frame]
                peak = max(peak, abs(sample))
                squares += sample * sample
            }
        }
        if step.outputCount > 1 { squares /= Float(step.outputCount) }
        var seen = plan.meterPeaks[index].load(ordering: .relaxed)
        while peak > Float(bitPattern: seen) {
            let (exchanged, now) = plan.meterPeaks[index].compareExchange(expected: seen, desired: peak.bitPattern, ordering: .relaxed)
            if exchanged { break }
            seen = now
        }
        var energy = plan.meterEnergies[index].load(ordering: .relaxed)
        while true {
            let sum = Float(bitPattern: UInt32(truncatingIfNeeded: energy >> 32)) + squares
            let count = UInt32(truncatingIfNeeded: energy) &+ UInt32(truncatingIfNeeded: frames)
            let (exchanged, now) = plan.meterEnergies[index].compareExchange(
                expected: energy, desired: UInt64(sum.bitPattern) << 32 | UInt64(count), ordering: .relaxed)
            if exchanged { break }
            energy = now
        }
    }

    /// Mixes what a step's inputs read this cycle, after running its compensation delay lines
    /// (whose outputs the mix reads).
    /// - Realtime: safe.
    @inline(__always)
    static func prepareInputs(_ plan: borrowing RenderPlan, _ step: RenderStep, frames: Int, outside: Bool) {
        if outside {
            let hearsOutside = step.slot._withUnsafeGuaranteedRef { $0.hearsOutsideInput.load(ordering: .relaxed) }
            if step.delayCount > 0 { delay(plan, step, frames: frames, hearing: hearsOutside) }
            let inputStart = Int(step.inputStart), inputCount = Int(step.inputCount)
            guard inputCount > 0 else { return }
            for index in inputStart..<(inputStart &+ inputCount) {
                plan.inputPointers[index] = mixInput(plan.inputs[index], plan: plan, frames: frames, hearsOutside: hearsOutside)
            }
        } else {
            if step.delayCount > 0 { delay(plan, step, frames: frames, hearing: false) }
            guard step.mixCount > 0 else { return }
            // No outside signal anywhere (nearly always): every input already points at its
            // quiet buffer; only sums and scaled connections are computed.
            let mixStart = Int(step.mixStart)
            for position in mixStart..<(mixStart &+ Int(step.mixCount)) {
                mixSources(plan.inputs[Int(plan.mixedInputs[position])], plan: plan, frames: frames)
            }
        }
    }

    /// Runs the delay lines of a step's compensated connections and outside signals (these
    /// given silence unless the app `hearing` them).
    /// - Realtime: safe.
    @inline(never)
    static func delay(_ plan: borrowing RenderPlan, _ step: RenderStep, frames: Int, hearing: Bool) {
        let start = Int(step.delayStart)
        for index in start..<(start &+ Int(step.delayCount)) {
            let line = plan.delays[index]
            if line.externalIndex < 0 {
                line.run(line.source, frames: frames)
            } else {
                line.run(hearing ? plan.externalInputs[Int(line.externalIndex)] : nil, frames: frames)
            }
        }
    }

    /// The tables of a step's input and output buffer pointers.
    /// - Realtime: safe.
    @inline(__always)
    static func buffers(_ plan: borrowing RenderPlan, _ step: RenderStep)
        -> (inputs: UnsafePointer<UnsafePointer<Float>>, outputs: UnsafePointer<UnsafeMutablePointer<Float>>) {
        (UnsafePointer(plan.inputPointers.baseAddress.unsafelyUnwrapped + Int(step.inputStart)),
         UnsafePointer(plan.outputPointers.baseAddress.unsafelyUnwrapped + Int(step.outputStart)))
    }

    /// The MIDI messages a step's node receives this cycle.
    /// - Realtime: safe.
    @inline(__always)
    static func midiEvents(_ plan: borrowing RenderPlan, _ step: RenderStep) -> MIDIEvents {
        guard step.midiIndex >= 0 else { return .none }
        let buffer = plan.midiBuffers[Int(step.midiIndex)]
        return MIDIEvents(base: UnsafePointer(buffer.events), count: buffer.count)
    }

    /// Renders the isolated apps `first..<end`, which do not feed one another: each one's
    /// inputs are mixed and its cycle handed to its child, then each is finished, last first.
    /// Children sharing the audio thread's CPU run in the order they were handed their cycle,
    /// so the last one answers last: waiting for it first sleeps once for the whole wave, and
    /// the others have answered by then (docs/isolation.md, "Waves").
    /// - Realtime: safe (the one documented wait, in the last member's `finish`).
    @inline(never)
    static func renderWave(_ plan: borrowing RenderPlan, from first: Int, to end: Int, _ context: RenderContext, outside: Bool) {
        for index in first..<end {
            let step = plan.steps[index]
            prepareInputs(plan, step, frames: context.frames, outside: outside)
            iaa_note_step(plan.stepNote, index)
            let (inputs, outputs) = buffers(plan, step)
            step.slot._withUnsafeGuaranteedRef { slot in
                slot.begin(context, inputs: inputs, inputCount: Int(step.inputCount), outputs: outputs,
                           outputCount: Int(step.outputCount), midi: midiEvents(plan, step))
            }
        }
        for index in (first..<end).reversed() {
            let step = plan.steps[index]
            iaa_note_step(plan.stepNote, index)
            let (inputs, outputs) = buffers(plan, step)
            step.slot._withUnsafeGuaranteedRef { slot in
                slot.finish(context, inputs: inputs, inputCount: Int(step.inputCount), outputs: outputs,
                            outputCount: Int(step.outputCount), midi: midiEvents(plan, step))
            }
        }
    }

    /// Empties every MIDI buffer; backends call it before adding this cycle's messages.
    /// - Realtime: safe.
    public static func clearMIDI(_ plan: borrowing RenderPlan) {
        for index in plan.midiBuffers.indices { plan.midiBuffers[index].count = 0 }
    }

    /// True when the backend connected any outside buffer this cycle: one OR over the table
    /// (vectorised), so a quiet cycle need not look at each input's outside port.
    /// - Realtime: safe.
    @inline(__always)
    static func hearsOutsideSignal(_ plan: borrowing RenderPlan) -> Bool {
        // Read as plain words: over optional pointers the loop kept a branch per entry.
        let words = UnsafeRawPointer(plan.externalInputs.baseAddress.unsafelyUnwrapped)
            .assumingMemoryBound(to: UInt.self)
        var any: UInt = 0
        for index in 0..<plan.externalInputs.count { any |= words[index] }
        return any != 0
    }

    /// Points every input back at its quiet buffer after cycles that heard outside signals.
    /// - Realtime: safe.
    @inline(never)
    static func restoreQuietPointers(_ plan: borrowing RenderPlan) {
        for index in plan.inputs.indices { plan.inputPointers[index] = plan.inputs[index].quietPointer }
    }

    /// Writes into the input's own buffer the outside signal (when given), every connection's
    /// gain and the sum, in one pass (CKernels' `mix`), not a copy and then one read-modify-write
    /// pass per source.
    /// - Realtime: safe.
    @inline(__always)
    static func mixSources(_ input: InputMix, adding external: UnsafePointer<Float>? = nil, plan: borrowing RenderPlan,
                           frames: Int) {
        let sources = UnsafePointer(plan.sources.baseAddress.unsafelyUnwrapped + input.sourceStart)
        iaa_kernels().pointee.mix(external, sources, input.sourceCount, input.mixBuffer, frames)
    }

    /// Returns the buffer an input reads this cycle: the silent buffer, a single unscaled source
    /// or outside signal as it is (no copy), or the input's own buffer holding the gain-scaled sum.
    /// - Realtime: safe.
    @inline(__always)
    static func mixInput(_ input: InputMix, plan: borrowing RenderPlan, frames: Int, hearsOutside: Bool) -> UnsafePointer<Float> {
        var external = input.externalIndex >= 0 && (hearsOutside || input.programEnd) ? plan.externalInputs[input.externalIndex] : nil
        // Compensated: the outside signal as its line delays it, while the line has any to give.
        if input.outsideDelay >= 0 {
            let line = plan.delays[Int(input.outsideDelay)]
            external = hearsOutside && line.state.pointee.audible ? UnsafePointer(line.output) : nil
        }
        // Without an outside signal, what the compiler decided (the one unity source or silence).
        if external == nil, let unmixed = input.unmixed { return unmixed }
        // An outside signal alone is read as it is.
        if let external, input.sourceCount == 0 { return external }
        mixSources(input, adding: external, plan: plan, frames: frames)
        return UnsafePointer(input.mixBuffer)
    }
}

/// Which steps' times a cycle takes: for `iaa top` (with output peaks), for the deadline guard,
/// or to sample each step's cost for the split decision.
struct StepTiming: BitwiseCopyable {
    let metering: Bool
    let deadline: Bool
    let sampling: Bool

    var timed: Bool { metering || deadline || sampling }
}
