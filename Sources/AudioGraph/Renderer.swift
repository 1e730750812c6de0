import NodeKit
#if canImport(Glibc)
import Glibc
#endif

/// Renders one cycle of a plan: for each step, mix its inputs, then run its node.
public enum Renderer {
    /// Renders `context.frames` frames (at most `plan.maximumFrames`, which the caller checks).
    /// The backend has filled `plan.externalInputs` for this cycle.
    /// - Realtime: safe.
    public static func render(_ plan: borrowing RenderPlan, _ context: RenderContext, metering: Bool = false) {
        let frames = context.frames
        for (stepIndex, step) in plan.steps.enumerated() {
            let started = metering ? monotonicNanoseconds() : 0
            let hearsOutside = step.slot._withUnsafeGuaranteedRef { $0.hearsOutsideInput.load(ordering: .relaxed) }
            for index in step.inputStart..<(step.inputStart + step.inputCount) {
                plan.inputPointers[index] = mixInput(plan.inputs[index], plan: plan, frames: frames, hearsOutside: hearsOutside)
            }
            var midi = MIDIEvents.none
            if step.midiIndex >= 0 {
                let buffer = plan.midiBuffers[step.midiIndex]
                midi = MIDIEvents(base: UnsafePointer(buffer.events), count: buffer.count)
            }
            step.slot._withUnsafeGuaranteedRef { slot in
                slot.run(context,
                         inputs: UnsafePointer(plan.inputPointers.baseAddress.unsafelyUnwrapped + step.inputStart),
                         inputCount: step.inputCount,
                         outputs: UnsafePointer(plan.outputPointers.baseAddress.unsafelyUnwrapped + step.outputStart),
                         outputCount: step.outputCount, midi: midi)
            }
            if metering { meter(plan, step: stepIndex, started: started, frames: frames) }
        }
    }

    /// Records a step's time and output peak for `iaa top`.
    /// - Realtime: safe (clock_gettime is a vDSO read).
    @inline(never)
    static func meter(_ plan: borrowing RenderPlan, step index: Int, started: UInt64, frames: Int) {
        plan.meterTimes[index].store(monotonicNanoseconds() &- started, ordering: .relaxed)
        let step = plan.steps[index]
        var peak: Float = 0
        for output in step.outputStart..<(step.outputStart + step.outputCount) {
            let buffer = plan.outputPointers[output]
            for frame in 0..<frames { peak = max(peak, abs(buffer[frame])) }
        }
        if peak > Float(bitPattern: plan.meterPeaks[index].load(ordering: .relaxed)) {
            plan.meterPeaks[index].store(peak.bitPattern, ordering: .relaxed)
        }
    }

    /// - Realtime: safe.
    @inline(__always)
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Empties every MIDI buffer; backends call it before adding this cycle's messages.
    /// - Realtime: safe.
    public static func clearMIDI(_ plan: borrowing RenderPlan) {
        for index in plan.midiBuffers.indices { plan.midiBuffers[index].count = 0 }
    }

    /// Returns the buffer an input reads this cycle: the silent buffer, a single unscaled source
    /// as it is (no copy), or the input's own buffer holding the gain-scaled sum.
    /// - Realtime: safe.
    @inline(__always)
    static func mixInput(_ input: InputMix, plan: borrowing RenderPlan, frames: Int, hearsOutside: Bool) -> UnsafePointer<Float> {
        let external = hearsOutside && input.externalIndex >= 0 ? plan.externalInputs[input.externalIndex] : nil
        let total = input.sourceCount + (external == nil ? 0 : 1)
        if total == 0 { return UnsafePointer(plan.silence) }
        if total == 1 {
            if let external { return external }
            let only = plan.sources[input.sourceStart]
            if only.gain == 1 { return only.buffer }
        }
        let sum = input.mixBuffer
        var first = true
        if let external {
            sum.update(from: external, count: frames)
            first = false
        }
        for index in input.sourceStart..<(input.sourceStart + input.sourceCount) {
            let source = plan.sources[index]
            if first {
                scale(source.buffer, by: source.gain, into: sum, frames: frames)
                first = false
            } else {
                accumulate(source.buffer, gain: source.gain, into: sum, frames: frames)
            }
        }
        return UnsafePointer(sum)
    }

    /// - Realtime: safe.
    @inline(__always)
    static func scale(_ source: UnsafePointer<Float>, by gain: Float, into out: UnsafeMutablePointer<Float>, frames: Int) {
        for frame in 0..<frames { out[frame] = source[frame] * gain }
    }

    /// - Realtime: safe.
    @inline(__always)
    static func accumulate(_ source: UnsafePointer<Float>, gain: Float, into out: UnsafeMutablePointer<Float>, frames: Int) {
        if gain == 1 {
            for frame in 0..<frames { out[frame] += source[frame] }
        } else {
            for frame in 0..<frames { out[frame] += source[frame] * gain }
        }
    }
}
