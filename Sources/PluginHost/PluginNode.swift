import IAAPluginABI
import NodeKit
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The node the engine runs for one instance of a plugin: it calls the plugin's C functions.
///
/// Every buffer the C call needs (the process context, pointer tables, ramps, MIDI events,
/// transport) is allocated once here, so a cycle only copies a few values and makes one call.
/// It holds its ``PluginLibrary``, so the code it calls stays loaded while the node lives.
public final class PluginNode: AudioNode {
    /// The most MIDI events passed to the plugin per cycle; later ones in the cycle are dropped.
    public static let midiCapacity = 1024
    /// `create` runs when the graph is loaded, before the engine's rate is known, with these
    /// values; `prepare` creates the instance again only if the real rate differs or the real
    /// cycle is longer (a cycle shorter than `max_frames` is always allowed).
    static let provisionalSampleRate = 48_000.0
    static let provisionalMaximumFrames = 8192

    /// The graph's `plugin` value, for messages.
    public let plugin: String
    /// Why the node is silent, when `prepare` had to create the instance again and the plugin
    /// refused (nil while the node runs).
    public private(set) var failure: String?

    private let library: PluginLibrary
    private let descriptor: UnsafePointer<iaa_plugin_descriptor>
    // Copied out of the descriptor's checked copy (never read through `descriptor`, which may be
    // an older, shorter struct), so a cycle reads two pointers, not the whole struct.
    private let createFunction: CreateFunction
    private let resetFunction: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    private let destroyFunction: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    private let processFunction: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<iaa_process_context>?) -> Void
    private let setParameterFunction: (@convention(c) (UnsafeMutableRawPointer?, UInt32, Float) -> Void)?
    private var instance: UnsafeMutableRawPointer?
    private var createdSampleRate: Double
    private var createdMaximumFrames: Int
    private let inputCount: Int
    private let outputCount: Int
    private let parameterCount: Int
    private let context: UnsafeMutablePointer<iaa_process_context>
    private let transport: UnsafeMutablePointer<iaa_transport>
    /// Where the plugin's latency goes when the cycle's context has no cell for it.
    private let spareLatency: UnsafeMutablePointer<UInt32>
    private let inputs: UnsafeMutablePointer<UnsafePointer<Float>?>
    private let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let ramps: UnsafeMutablePointer<iaa_ramp>
    /// The last target passed to `set_parameter`, as bits (NaN's bits until the first cycle).
    private let sentTargets: UnsafeMutablePointer<UInt32>
    private let midi: UnsafeMutablePointer<iaa_midi_event>

    /// Creates an instance of `descriptor`; throws ``PluginCreateError`` with the plugin's own
    /// message when its `create` fails. Control side.
    init(library: PluginLibrary, descriptor: PluginDescriptor, plugin: String) throws(PluginCreateError) {
        self.library = library
        self.descriptor = descriptor.raw
        self.plugin = plugin
        // PluginDescriptor.read checked that process is set.
        processFunction = descriptor.fields.process ?? { _, _ in }
        setParameterFunction = descriptor.fields.set_parameter
        createFunction = descriptor.fields.create
        resetFunction = descriptor.fields.reset
        destroyFunction = descriptor.fields.destroy
        createdSampleRate = Self.provisionalSampleRate
        createdMaximumFrames = Self.provisionalMaximumFrames
        instance = try Self.create(createFunction, descriptor.raw, plugin: plugin, sampleRate: createdSampleRate,
                                   maximumFrames: createdMaximumFrames)
        inputCount = descriptor.layout.inputs.count
        outputCount = descriptor.layout.outputs.count
        parameterCount = descriptor.parameters.count
        context = .allocate(capacity: 1)
        spareLatency = .allocate(capacity: 1)
        spareLatency.initialize(to: 0)
        transport = .allocate(capacity: 1)
        transport.initialize(to: iaa_transport())
        inputs = .allocate(capacity: max(inputCount, 1))
        inputs.initialize(repeating: nil, count: max(inputCount, 1))
        outputs = .allocate(capacity: max(outputCount, 1))
        outputs.initialize(repeating: nil, count: max(outputCount, 1))
        ramps = .allocate(capacity: max(parameterCount, 1))
        ramps.initialize(repeating: iaa_ramp(), count: max(parameterCount, 1))
        sentTargets = .allocate(capacity: max(parameterCount, 1))
        sentTargets.initialize(repeating: Float.nan.bitPattern, count: max(parameterCount, 1))
        midi = .allocate(capacity: Self.midiCapacity)
        midi.initialize(repeating: iaa_midi_event(), count: Self.midiCapacity)
        context.initialize(to: iaa_process_context(
            frames: 0, sample_rate: createdSampleRate, sample_time: 0,
            inputs: UnsafeRawPointer(inputs).assumingMemoryBound(to: UnsafePointer<Float>?.self),
            input_count: UInt32(inputCount),
            outputs: UnsafeRawPointer(outputs).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self),
            output_count: UInt32(outputCount),
            parameters: UnsafePointer(ramps), parameter_count: UInt32(parameterCount),
            midi: UnsafePointer(midi), midi_count: 0, transport: UnsafePointer(transport),
            request_transport: { host, request in
                // `host` is the slot's request cell; an unknown request is ignored by the engine.
                guard let host, request <= UInt32(UInt8.max) else { return }
                host.assumingMemoryBound(to: Atomic<UInt8>.self).pointee.store(UInt8(request), ordering: .releasing)
            }, host: nil, latency: spareLatency))
    }

    deinit {
        if let instance { destroyFunction?(instance) }
        context.deallocate()
        spareLatency.deallocate()
        transport.deallocate()
        inputs.deallocate()
        outputs.deallocate()
        ramps.deallocate()
        sentTargets.deallocate()
        midi.deallocate()
    }

    private typealias CreateFunction = (@convention(c) (UnsafePointer<iaa_plugin_descriptor>?, Double, UInt32,
                                                        UnsafeMutablePointer<CChar>?, Int) -> UnsafeMutableRawPointer?)?

    private static func create(_ create: CreateFunction, _ descriptor: UnsafePointer<iaa_plugin_descriptor>, plugin: String,
                               sampleRate: Double, maximumFrames: Int) throws(PluginCreateError) -> UnsafeMutableRawPointer {
        let capacity = 1024
        let result: Result<UnsafeMutableRawPointer, PluginCreateError> =
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
                buffer.initialize(repeating: 0)
                guard let base = buffer.baseAddress else { return .failure(PluginCreateError(plugin: plugin, reason: "")) }
                if let instance = create?(descriptor, sampleRate, UInt32(maximumFrames), base, capacity) {
                    return .success(instance)
                }
                base[capacity - 1] = 0  // a plugin that filled the buffer without a terminator
                let reason = String(decoding: UnsafeRawBufferPointer(start: base, count: strlen(base)), as: UTF8.self)
                return .failure(PluginCreateError(plugin: plugin, reason: reason))
            }
        return try result.get()
    }

    /// Creates the instance again when the engine's rate differs from the provisional one or its
    /// cycles are longer. Control side.
    public func prepare(sampleRate: Double, maximumFrames: Int) {
        guard instance == nil || sampleRate != createdSampleRate || maximumFrames > createdMaximumFrames else { return }
        if let instance { destroyFunction?(instance) }
        instance = nil
        do {
            instance = try Self.create(createFunction, descriptor, plugin: plugin, sampleRate: sampleRate, maximumFrames: maximumFrames)
            failure = nil
        } catch {
            failure = error.description
        }
        createdSampleRate = sampleRate
        createdMaximumFrames = maximumFrames
        context.pointee.sample_rate = sampleRate
        sentTargets.update(repeating: Float.nan.bitPattern, count: max(parameterCount, 1))
    }

    /// Calls the plugin's `reset`. Control side.
    public func reset() {
        if let instance { resetFunction?(instance) }
    }

    /// Fills the preallocated C context from `context` and calls the plugin's `process`.
    /// - Realtime: safe (no allocation, lock or retain; the plugin must keep its own promise).
    public func process(_ context: ProcessContext) {
        let frames = context.frames
        guard let instance else {
            for index in 0..<context.outputs.count { context.outputs[index].update(repeating: 0) }
            return
        }
        let c = self.context
        let inputsGiven = min(inputCount, context.inputs.count)
        for index in 0..<inputsGiven { inputs[index] = context.inputs[index].baseAddress }
        let outputsGiven = min(outputCount, context.outputs.count)
        for index in 0..<outputsGiven { outputs[index] = context.outputs[index].baseAddress }
        let parametersGiven = min(parameterCount, context.parameters.count)
        for index in 0..<parametersGiven {
            let ramp = context.parameters[index]
            ramps[index] = iaa_ramp(start: ramp.start, step: ramp.step,
                                    ramp_frames: UInt32(clamping: ramp.rampFrames), end: ramp.end)
        }
        if let setParameter = setParameterFunction {
            for index in 0..<parametersGiven where sentTargets[index] != ramps[index].end.bitPattern {
                sentTargets[index] = ramps[index].end.bitPattern
                setParameter(instance, UInt32(index), ramps[index].end)
            }
        }
        let events = min(context.midi.count, Self.midiCapacity)
        for index in 0..<events {
            let event = context.midi[index]
            midi[index] = iaa_midi_event(frame: UInt32(clamping: event.frame), size: event.size,
                                         data: (event.status, event.data1, event.data2))
        }
        let host = context.transport
        transport.pointee = iaa_transport(
            playing: host.isPlaying ? 1 : 0, recording: host.isRecording ? 1 : 0, tempo: host.tempo,
            beats_per_bar: host.beatsPerBar, beat: host.beat, bar: Int32(clamping: host.bar),
            beat_in_bar: host.beatInBar, sample_time: host.sampleTime)
        c.pointee.frames = UInt32(clamping: frames)
        c.pointee.sample_time = context.sampleTime
        c.pointee.input_count = UInt32(inputsGiven)
        c.pointee.output_count = UInt32(outputsGiven)
        c.pointee.parameter_count = UInt32(parametersGiven)
        c.pointee.midi_count = UInt32(events)
        c.pointee.host = context.transportRequests.opaqueCell
        // The slot's cell itself (an atomic word the plugin writes as a plain one, as LV2 plugins
        // write their latency port); a context without one gets a cell nobody reads.
        c.pointee.latency = context.latency.opaqueCell?.assumingMemoryBound(to: UInt32.self) ?? spareLatency
        processFunction(instance, UnsafePointer(c))
    }
}
