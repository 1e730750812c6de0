import CKernels
import NodeKit
import Testing
@testable import Nodes

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel sets (CKernels) called one by one, not through the table chosen at load time, so
/// that the AVX2+FMA build and the portable build are both checked against the same references
/// on a machine that has AVX2.
@Suite("Kernel sets")
struct KernelSetTests {
    /// Every set this CPU runs: the portable one always, AVX2+FMA when the CPU reports both
    /// (checked in `avx2WhenTheCPUHasIt`, so these tests cannot silently check one set only).
    static var sets: [(name: String, table: iaa_kernel_table)] {
        var sets = [("portable", iaa_kernels_of(IAA_KERNELS_PORTABLE)!.pointee)]
        if let avx2 = iaa_kernels_of(IAA_KERNELS_AVX2_FMA) { sets.append(("avx2+fma", avx2.pointee)) }
        return sets
    }

    /// The frame counts every kernel is tried at: below, at and past its block sizes (8, 16, 32).
    static let frameCounts = [1, 7, 8, 15, 16, 31, 33, 100, 128, 256]

    /// True when /proc/cpuinfo lists both `avx2` and `fma` (Linux on x86-64).
    private static var cpuinfoHasAVX2AndFMA: Bool {
        guard let file = fopen("/proc/cpuinfo", "r") else { return false }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 8_192)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("flags") else { continue }
            let flags = Set(text.split { $0 == " " || $0 == "\t" || $0 == "\n" })
            return flags.contains("avx2") && flags.contains("fma")
        }
        return false
    }

    @Test("the AVX2+FMA set exists exactly when the CPU has AVX2 and FMA, and is the one chosen")
    func avx2WhenTheCPUHasIt() {
        #if arch(x86_64)
        let expected = Self.cpuinfoHasAVX2AndFMA
        #else
        let expected = false
        #endif
        #expect((iaa_kernels_of(IAA_KERNELS_AVX2_FMA) != nil) == expected)
        if expected && getenv("IAA_KERNELS") == nil {
            #expect(iaa_kernels_selected() == IAA_KERNELS_AVX2_FMA)
        }
        #expect(Self.sets.count == (expected ? 2 : 1))
    }

    @Test("sine: within 1e-6 of sin(2π·phase) and 2.5e-7 of the Swift kernel, at every frame count")
    func sine() {
        for (name, table) in Self.sets {
            for frames in Self.frameCounts {
                let increment = 0.013_7, start = -0.31
                let offsets = (0..<16).map { Float(2 * cycleFraction(Double($0) * increment)) }
                var out = [Float](repeating: .nan, count: frames)
                #expect(table.sine(&out, frames, start, increment, offsets, 1) == 0, "\(name): every sample finite")
                for frame in 0..<frames {
                    let exact = sin(2 * Double.pi * (start + Double(frame) * increment))
                    #expect(abs(Double(out[frame]) - exact) < 1e-6, "\(name), \(frames) frames, frame \(frame)")
                }
                // The Swift reference at the very phases the kernel evaluates (block start + lane offset).
                for block in stride(from: 0, to: frames, by: 16) {
                    let blockStart = Float(2 * cycleFraction(start + Double(block) * increment))
                    for half in 0..<2 {
                        let lanes = SIMD8<Float>((0..<8).map { offsets[half * 8 + $0] + blockStart })
                        let swift = Nodes.sine(halfCycles: lanes)
                        for lane in 0..<8 where block + half * 8 + lane < frames {
                            #expect(abs(out[block + half * 8 + lane] - swift[lane]) <= 2.5e-7, "\(name), frame \(block + half * 8 + lane)")
                        }
                    }
                }
            }
        }
    }

    @Test("sine: a steady amplitude scales it, and no phase in [0.48, 0.52] half cycles passes 1")
    func sineBounded() {
        for (name, table) in Self.sets {
            var phase: Float = 0.48, largest: Float = 0
            var out = [Float](repeating: 0, count: 16)
            while phase < 0.52 {
                var offsets = [Float](repeating: 0, count: 16)
                for lane in 0..<16 {
                    offsets[lane] = phase
                    phase = phase.nextUp
                }
                #expect(table.sine(&out, 16, 0, 0, offsets, 1) == 0)
                largest = max(largest, out.max()!)
            }
            #expect(largest <= 1, "\(name)")
            let offsets = [Float](repeating: 0.5, count: 16)
            #expect(table.sine(&out, 16, 0, 0, offsets, 0.25) == 0)
            #expect(out.allSatisfy { abs($0 - 0.25) <= 1e-7 }, "\(name)")
        }
    }

    /// Inputs that are not all alike: sums of unrelated sines.
    private static func signal(_ seed: Double, frames: Int) -> [Float] {
        (0..<frames).map { Float(sin(Double($0) * 0.7 * seed) + 0.5 * sin(Double($0) * 2.3 + seed)) }
    }

    @Test("onepole: the frame-by-frame recursion within 2e-6, state carried across calls")
    func onepole() {
        let g = tan(Double.pi * 2_500 / 48_000), gain = g / (1 + g), feedback = 1 - 2 * gain
        for (name, table) in Self.sets {
            for frames in Self.frameCounts {
                var state = iaa_onepole()
                state.gain = Float(gain)
                state.feedback = Float(feedback)
                var power = 1.0
                withUnsafeMutableBytes(of: &state.powers) { raw in
                    for k in 0..<16 {
                        power *= feedback
                        raw.storeBytes(of: Float(power), toByteOffset: k * 4, as: Float.self)
                    }
                }
                var x1 = 0.0, y1 = 0.0, worst = 0.0
                for call in 0..<4 {
                    let input = Self.signal(Double(call + 1), frames: frames)
                    var out = [Float](repeating: .nan, count: frames)
                    #expect(table.onepole(&state, input, &out, frames) == 0, "\(name): every sample finite")
                    for frame in 0..<frames {
                        y1 = feedback * y1 + gain * (Double(input[frame]) + x1)
                        x1 = Double(input[frame])
                        worst = max(worst, abs(Double(out[frame]) - y1))
                    }
                }
                #expect(worst < 2e-6, "\(name), \(frames) frames")
            }
        }
    }

    @Test("svf: the TPT recursion in Double within 1e-6, in each mode, state carried across calls")
    func stateVariableFilter() {
        let g = tan(Double.pi * 1_200 / 48_000), k = 0.5
        let a1 = 1 / (1 + g * (g + k)), a2 = g * a1, a3 = g * a2
        for (name, table) in Self.sets {
            for mode in 0...2 {
                for frames in Self.frameCounts {
                    var state = iaa_svf(ic1eq: 0, ic2eq: 0, k: k, a1: a1, a2: a2, a3: a3, mode: 0)
                    var ic1 = 0.0, ic2 = 0.0, worst = 0.0
                    for call in 0..<4 {
                        let input = Self.signal(Double(call + 1), frames: frames)
                        var out = [Float](repeating: .nan, count: frames)
                        table.svf(&state, input, &out, frames, Int32(mode))
                        for frame in 0..<frames {
                            let v0 = Double(input[frame]), v3 = v0 - ic2
                            let v1 = a1 * ic1 + a2 * v3, v2 = ic2 + a2 * ic1 + a3 * v3
                            ic1 = 2 * v1 - ic1
                            ic2 = 2 * v2 - ic2
                            let exact = mode == 0 ? v2 : mode == 1 ? v0 - k * v1 - v2 : k * v1
                            worst = max(worst, abs(Double(out[frame]) - exact))
                        }
                    }
                    #expect(worst < 1e-6, "\(name), mode \(mode), \(frames) frames")
                }
            }
        }
    }

    @Test("scale, scale_ramp, sum and mix: the exact arithmetic within 1e-6")
    func linear() {
        for (name, table) in Self.sets {
            for frames in Self.frameCounts {
                let a = Self.signal(1, frames: frames), b = Self.signal(2, frames: frames), c = Self.signal(3, frames: frames)
                var out = [Float](repeating: .nan, count: frames)
                table.scale(a, &out, frames, 0.3)
                #expect(zip(out, a).allSatisfy { abs(Double($0) - 0.3 * Double($1)) < 1e-6 }, "\(name) scale \(frames)")
                let rampFrames = frames / 2
                #expect(table.scale_ramp(a, &out, frames, 1, -0.01, rampFrames, 0.25) == 0)
                for frame in 0..<frames {
                    let factor = frame < rampFrames ? 1 - 0.01 * Double(frame) : 0.25
                    #expect(abs(Double(out[frame]) - factor * Double(a[frame])) < 1e-6, "\(name) ramp \(frames)@\(frame)")
                }
                a.withUnsafeBufferPointer { pa in
                    b.withUnsafeBufferPointer { pb in
                        c.withUnsafeBufferPointer { pc in
                            let inputs = [pa.baseAddress!, pb.baseAddress!, pc.baseAddress!]
                            #expect(table.sum(inputs, 3, &out, frames, 0.5) == 0)
                            for frame in 0..<frames {
                                let exact = 0.5 * (Double(a[frame]) + Double(b[frame]) + Double(c[frame]))
                                #expect(abs(Double(out[frame]) - exact) < 1e-6, "\(name) sum \(frames)@\(frame)")
                            }
                            let sources = [iaa_mix_source(buffer: pb.baseAddress!, gain: 0.5),
                                           iaa_mix_source(buffer: pc.baseAddress!, gain: 2)]
                            for first in [pa.baseAddress, nil] {
                                table.mix(first, sources, 2, &out, frames)
                                for frame in 0..<frames {
                                    let exact = (first == nil ? 0 : Double(a[frame])) + 0.5 * Double(b[frame]) + 2 * Double(c[frame])
                                    #expect(abs(Double(out[frame]) - exact) < 1e-6, "\(name) mix \(frames)@\(frame)")
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("steady cycles: each is its node's kernel bit for bit, and the oscillator's phase advances by the cycle")
    func steadyCycles() {
        for (name, table) in Self.sets {
            for frames in Self.frameCounts {
                let a = Self.signal(1, frames: frames), b = Self.signal(2, frames: frames)
                var cycle = [Float](repeating: .nan, count: frames), kernel = [Float](repeating: .nan, count: frames)
                a.withUnsafeBufferPointer { pa in
                    b.withUnsafeBufferPointer { pb in
                        cycle.withUnsafeMutableBufferPointer { out in
                            let inputs = [pa.baseAddress!, pb.baseAddress!], outputs = [out.baseAddress!]
                            func same(_ what: String) {
                                #expect(out.elementsEqual(kernel) { $0.bitPattern == $1.bitPattern }, "\(name) \(what) \(frames)")
                            }
                            var oscillator = iaa_oscillator()
                            oscillator.phase = -0.31
                            oscillator.increment = 0.0137
                            oscillator.scale = 0.8
                            withUnsafeMutableBytes(of: &oscillator.offsets) { bytes in
                                let offsets = bytes.bindMemory(to: Float.self)
                                for lane in 0..<16 { offsets[lane] = Float(2 * cycleFraction(Double(lane) * 0.0137)) }
                            }
                            let offsets = withUnsafeBytes(of: oscillator.offsets) { Array($0.bindMemory(to: Float.self)) }
                            _ = table.oscillator_cycle(&oscillator, inputs, outputs, frames)
                            _ = table.sine(&kernel, frames, -0.31, 0.0137, offsets, 0.8)
                            same("oscillator")
                            let next = -0.31 + Double(frames) * 0.0137
                            #expect(abs(oscillator.phase - cycleFraction(next)) < 1e-15 && abs(oscillator.phase) <= 0.5,
                                    "\(name) oscillator phase \(frames)")

                            var gain = iaa_gain_stage(gain: 0.3, inputs: 1)
                            _ = table.gain_cycle(&gain, inputs, outputs, frames)
                            _ = table.scale_ramp(a, &kernel, frames, 0.3, 0, 0, 0.3)
                            same("gain")

                            var mixer = iaa_gain_stage(gain: 0.5, inputs: 2)
                            _ = table.mixer_cycle(&mixer, inputs, outputs, frames)
                            _ = table.sum(inputs, 2, &kernel, frames, 0.5)
                            same("mixer")
                            mixer.inputs = 0
                            #expect(table.mixer_cycle(&mixer, inputs, outputs, frames) == 0)
                            #expect(UnsafeBufferPointer(out).allSatisfy { $0 == 0 }, "\(name) mixer of no inputs \(frames)")

                            var first = iaa_onepole()
                            first.gain = 0.2
                            first.feedback = 0.6
                            first.previous_input = 0.1
                            first.previous_output = -0.05
                            var second = first
                            _ = table.onepole_cycle(&first, inputs, outputs, frames)
                            _ = table.onepole(&second, a, &kernel, frames)
                            same("onepole")

                            var filter = iaa_svf(ic1eq: 0.01, ic2eq: -0.02, k: 0.9, a1: 0.8, a2: 0.1, a3: 0.01, mode: 1)
                            var reference = filter
                            let check = table.svf_cycle(&filter, inputs, outputs, frames)
                            table.svf(&reference, a, &kernel, frames, 1)
                            same("svf")
                            #expect(check == table.nonfinite(kernel, frames) && filter.ic1eq == reference.ic1eq,
                                    "\(name) svf check and state \(frames)")
                            #expect(first.previous_output == second.previous_output, "\(name) onepole state \(frames)")
                        }
                    }
                }
            }
        }
    }

    @Test("nonfinite: 0 for finite audio, nonzero for a NaN or an infinity at any frame")
    func nonfinite() {
        for (name, table) in Self.sets {
            for frames in Self.frameCounts {
                var buffer = Self.signal(1, frames: frames)
                #expect(table.nonfinite(buffer, frames) == 0, "\(name), \(frames) frames")
                for frame in 0..<frames {
                    let kept = buffer[frame]
                    for bad in [Float.nan, .infinity, -.infinity] {
                        buffer[frame] = bad
                        #expect(table.nonfinite(buffer, frames) != 0, "\(name), \(bad) at \(frame) of \(frames)")
                    }
                    buffer[frame] = kept
                }
            }
        }
    }

    @Test("sine, scale_ramp, onepole and sum return nonfinite's answer for what they wrote, a bad sample at any frame")
    func outputChecks() {
        let g = tan(Double.pi * 2_500 / 48_000), gain = Float(g / (1 + g)), feedback = 1 - 2 * gain
        for (name, table) in Self.sets {
            for frames in Self.frameCounts {
                let a = Self.signal(1, frames: frames), b = Self.signal(2, frames: frames)
                var out = [Float](repeating: 0, count: frames)
                let offsets = (0..<16).map { Float(2 * 0.01 * Double($0)) }
                for scale in [Float(0.5), .infinity, .nan] {
                    let check = table.sine(&out, frames, 0.2, 0.01, offsets, scale)
                    #expect((check == 0) == scale.isFinite, "\(name) sine × \(scale), \(frames) frames")
                    #expect((check == 0) == (table.nonfinite(out, frames) == 0), "\(name) sine × \(scale), \(frames) frames")
                }
                for frame in [0, frames / 2, frames - 1] {
                    for bad in [Float.nan, .infinity] {
                        var input = a
                        input[frame] = bad
                        let place = "\(name), \(bad) at \(frame) of \(frames)"
                        // A steady gain, and a ramp that covers the bad frame or ends before it.
                        for rampFrames in [0, frames / 3, frames] {
                            #expect(table.scale_ramp(input, &out, frames, 1, -0.001, rampFrames, 0.5) != 0, "scale_ramp, \(place)")
                        }
                        #expect(table.scale_ramp(a, &out, frames, 1, -0.001, frames / 3, 0.5) == 0, "scale_ramp, \(place)")
                        var state = iaa_onepole()
                        state.gain = gain
                        state.feedback = feedback
                        #expect(table.onepole(&state, input, &out, frames) != 0, "onepole, \(place)")
                        input.withUnsafeBufferPointer { bad in
                            b.withUnsafeBufferPointer { good in
                                for inputs in [[good.baseAddress!, bad.baseAddress!], [bad.baseAddress!, good.baseAddress!]] {
                                    #expect(table.sum(inputs, 2, &out, frames, 1) != 0, "sum, \(place)")
                                    #expect(table.sum(inputs, 2, &out, frames, 0.5) != 0, "sum, \(place)")
                                }
                                let finite = [good.baseAddress!, good.baseAddress!]
                                #expect(table.sum(finite, 2, &out, frames, 0.5) == 0, "sum, \(place)")
                            }
                        }
                    }
                }
            }
        }
    }
}

// MARK: The delay and the synth voices, against straightforward references.

/// builtin:delay as its node once ran it, one frame at a time in Double-indexed arrays: the
/// reference the `delay` kernel (whose steady stretches run eight frames a vector) must follow.
private struct ReferenceDelay {
    var left: [Float], right: [Float]
    var write = 0
    var delay: Double, previous: Double
    var fadeRemaining: Int, fadeFrames: Int
    var pingPong: Float, pingTarget: Float, pingStep: Float

    func read(_ line: [Float], _ delay: Double) -> Float {
        var position = Double(write) - delay
        if position < 0 { position += Double(line.count) }
        let whole = Int(position), fraction = Float(position - Double(whole))
        return line[whole] + fraction * (line[(whole + 1) % line.count] - line[whole])
    }

    mutating func frame(_ dryLeft: Float, _ dryRight: Float, feedback: Float, mix: Float) -> (Float, Float) {
        var wetLeft = read(left, delay), wetRight = read(right, delay)
        if fadeRemaining > 0 {
            let old = Float(fadeRemaining) / Float(fadeFrames)
            wetLeft += (read(left, previous) - wetLeft) * old
            wetRight += (read(right, previous) - wetRight) * old
            fadeRemaining -= 1
        }
        if pingPong < pingTarget { pingPong = min(pingPong + pingStep, 1) }
        if pingPong > pingTarget { pingPong = max(pingPong - pingStep, 0) }
        let straight = (dryLeft + feedback * wetLeft, dryRight + feedback * wetRight)
        let crossed = ((dryLeft + dryRight) / 2 + feedback * wetRight, feedback * wetLeft)
        left[write] = straight.0 + (crossed.0 - straight.0) * pingPong
        right[write] = straight.1 + (crossed.1 - straight.1) * pingPong
        write = (write + 1) % left.count
        return (dryLeft + (wetLeft - dryLeft) * mix, dryRight + (wetRight - dryRight) * mix)
    }
}

/// A synth voice as plain Double arithmetic: libm's sine or the textbook polyBLEP saw, times a
/// linear ADSR envelope stepped frame by frame.
private struct ReferenceVoice {
    enum Stage { case idle, attack, decay, sustain, release }
    var stage: Stage, level: Double, peak: Double, attackStep: Double, decayStep: Double
    var releaseStart = 0.0, releaseFrames = 1, releaseRemaining = 0
    var phase: Double, increment: Double

    mutating func next(sustain: Double, saw: Bool) -> Double? {
        switch stage {
        case .idle: return nil
        case .attack where level < peak:
            level = min(level + attackStep, peak)
            if level == peak { stage = .decay }
        case .attack, .decay:
            stage = .decay
            level = max(level - decayStep, peak * sustain)
            if level == peak * sustain { stage = .sustain }
        case .sustain: level = peak * sustain
        case .release:
            releaseRemaining -= 1
            level = releaseRemaining <= 0 ? 0 : releaseStart * Double(releaseRemaining) / Double(releaseFrames)
            if releaseRemaining <= 0 { stage = .idle }
        }
        var wave = sin(2 * Double.pi * phase)
        if saw {
            wave = 2 * phase - 1
            if phase < increment {
                let x = phase / increment
                wave -= 2 * x - x * x - 1
            } else if phase > 1 - increment {
                let x = (phase - 1) / increment
                wave -= x * x + 2 * x + 1
            }
        }
        phase += increment
        if phase >= 1 { phase -= 1 }
        return wave * level
    }
}

extension KernelSetTests {
    /// Cycles of 100 frames cut into the given spans, as the node cuts them at a move of the tap.
    static let spans = [[0..<100], [0..<1, 1..<37, 37..<100], [0..<64, 64..<65, 65..<100]]

    @Test("delay: the frame-by-frame delay within 2e-5, through fades, ping-pong moves, ramps and wraps",
          arguments: [13.37, 16, 3.25, 1, 57.5])
    func delay(tap: Double) {
        let capacity = 61 // short, so every cycle wraps the lines
        for (name, table) in Self.sets {
            for spans in Self.spans {
                let lines = UnsafeMutablePointer<Float>.allocate(capacity: 2 * capacity)
                defer { lines.deallocate() }
                lines.initialize(repeating: 0, count: 2 * capacity)
                var state = iaa_delay(left: lines, right: lines + capacity, capacity: capacity, write_index: 0,
                                      delay: tap, previous_delay: 9.5, fade_remaining: 6, fade_frames: 10,
                                      ping_pong: 0, ping_target: 1, ping_step: 0.125)
                var reference = ReferenceDelay(left: .init(repeating: 0, count: capacity), right: .init(repeating: 0, count: capacity),
                                               delay: tap, previous: 9.5, fadeRemaining: 6, fadeFrames: 10,
                                               pingPong: 0, pingTarget: 1, pingStep: 0.125)
                let feedback = iaa_parameter_ramp(start: 0.2, step: 0.05, frames: 12, end: 0.7)
                let mix = iaa_parameter_ramp(start: 1, step: -0.02, frames: 20, end: 0.6)
                var worst: Float = 0
                for cycle in 0..<6 {
                    if cycle == 3 { (state.ping_target, reference.pingTarget) = (0.5, 0.5) }
                    let inLeft = Self.signal(Double(cycle + 1), frames: 100), inRight = Self.signal(Double(cycle + 7), frames: 100)
                    var outLeft = [Float](repeating: .nan, count: 100), outRight = outLeft
                    for span in spans {
                        table.delay(&state, inLeft, inRight, &outLeft, &outRight, span.lowerBound, span.upperBound, feedback, mix)
                    }
                    for frame in 0..<100 {
                        let ramped = ParameterRamp(start: feedback.start, step: feedback.step, rampFrames: 12, end: feedback.end)[frame]
                        let wet = ParameterRamp(start: mix.start, step: mix.step, rampFrames: 20, end: mix.end)[frame]
                        let (left, right) = reference.frame(inLeft[frame], inRight[frame], feedback: ramped, mix: wet)
                        worst = max(worst, abs(outLeft[frame] - left), abs(outRight[frame] - right))
                    }
                }
                #expect(worst < 2e-5, "\(name), tap \(tap), spans \(spans)")
                #expect(state.write_index == reference.write && state.fade_remaining == 0 && state.ping_pong == 0.5, "\(name)")
            }
        }
    }

    @Test("voices: libm's sine and the textbook saw times a linear ADSR within 2e-6, added into the buffer, idle voices silent, held ones in lanes")
    func voices() {
        for (name, table) in Self.sets {
            for saw in [false, true] {
                for spans in Self.spans {
                    func envelope(_ stage: iaa_envelope_stage, level: Double, release: Int = 0) -> iaa_envelope {
                        iaa_envelope(stage: stage, level: level, peak: 0.8, attack_step: 0.05, decay_step: 0.01,
                                     release_start: level, release_frames: release, release_remaining: release)
                    }
                    var voices = [
                        iaa_voice(envelope: envelope(IAA_ENVELOPE_ATTACK, level: 0), phase: 0.25, increment: 0.013, age: 1, note: 60),
                        iaa_voice(envelope: envelope(IAA_ENVELOPE_IDLE, level: 0), phase: 0.5, increment: 0.02, age: 2, note: 61),
                        iaa_voice(envelope: envelope(IAA_ENVELOPE_RELEASE, level: 0.5, release: 150), phase: 0.9, increment: 0.031,
                                  age: 3, note: 62),
                        iaa_voice(envelope: envelope(IAA_ENVELOPE_SUSTAIN, level: 0.4), phase: 0, increment: 0.0047, age: 4, note: 63),
                        iaa_voice(envelope: envelope(IAA_ENVELOPE_SUSTAIN, level: 0.7), phase: 0.6, increment: 0.11, age: 5, note: 64),
                        iaa_voice(envelope: envelope(IAA_ENVELOPE_SUSTAIN, level: 0.7), phase: 0.3, increment: 0.27, age: 6, note: 65),
                    ]
                    var reference = voices.map {
                        ReferenceVoice(stage: [.idle, .attack, .decay, .sustain, .release][Int($0.envelope.stage.rawValue)],
                                       level: $0.envelope.level, peak: 0.8, attackStep: 0.05, decayStep: 0.01,
                                       releaseStart: $0.envelope.level, releaseFrames: $0.envelope.release_frames,
                                       releaseRemaining: $0.envelope.release_remaining, phase: $0.phase, increment: $0.increment)
                    }
                    let sustain = iaa_parameter_ramp(start: 0.9, step: -0.004, frames: 50, end: 0.7)
                    var worst = 0.0
                    for cycle in 0..<3 {
                        let bed = Self.signal(Double(cycle + 1), frames: 100)
                        var out = bed
                        for span in spans {
                            table.voices(&voices, voices.count, &out, span.lowerBound, span.upperBound, sustain, saw ? 1 : 0)
                        }
                        for frame in 0..<100 {
                            let level = Double(ParameterRamp(start: sustain.start, step: sustain.step, rampFrames: 50, end: sustain.end)[frame])
                            var expected = Double(bed[frame])
                            for index in reference.indices {
                                expected += reference[index].next(sustain: level, saw: saw) ?? 0
                            }
                            worst = max(worst, abs(Double(out[frame]) - expected))
                        }
                    }
                    #expect(worst < 2e-6, "\(name), saw \(saw), spans \(spans)")
                    #expect(voices.map(\.envelope.stage) == [IAA_ENVELOPE_SUSTAIN, IAA_ENVELOPE_IDLE, IAA_ENVELOPE_IDLE] + [iaa_envelope_stage](repeating: IAA_ENVELOPE_SUSTAIN, count: 3),
                            "\(name)")
                    #expect(voices[2].envelope.level == 0 && voices[1].phase == 0.5, "\(name): the release ends at exactly 0; an idle voice is left alone")
                }
            }
        }
    }
}
