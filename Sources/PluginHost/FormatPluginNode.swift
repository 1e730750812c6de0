import CPluginFormats
import NodeKit

/// The node the engine runs for one LV2 or LADSPA instance.
///
/// Like ``PluginNode``, every buffer the C call needs (pointer tables, control values, MIDI
/// events, transport) is allocated here, so a cycle copies a few values and makes one C call,
/// `iaa_fx_run`, which connects the buffers and runs the plugin without allocating.
public final class FormatPluginNode: StatefulNode, ReportingNode {
    /// The most MIDI events passed per cycle; later ones in the cycle are dropped.
    public static let midiCapacity = 1024
    /// Frames per run while a parameter ramps (see `process`).
    static let sliceFrames = 16
    static let provisionalSampleRate = 48_000.0
    static let provisionalMaximumFrames = 8192

    /// The graph's `plugin` value, for messages.
    public let id: String
    /// Why the node is silent, when creating the instance again for a new rate failed.
    public private(set) var failure: String?
    private let plugin: FormatPlugin
    private var instance: OpaquePointer?
    /// The state restored at creation, restored again when the instance is created anew.
    private var restoredState: String?
    private var createdSampleRate: Double
    private var createdMaximumFrames: Int
    private let inputCount: Int
    private let outputCount: Int
    private let controlCount: Int
    private let controlOutputPorts: [Int32]
    /// The control output the plugin writes its latency to, or -1.
    private let latencyPort: Int32
    private let inputs: UnsafeMutablePointer<UnsafePointer<Float>?>
    private let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let controls: UnsafeMutablePointer<Float>
    private let midi: UnsafeMutablePointer<iaa_fx_midi>
    private let transport: UnsafeMutablePointer<iaa_fx_transport>

    /// Creates an instance; throws ``PluginCreateError`` when the plugin refuses. Control side.
    init(plugin: FormatPlugin, id: String, state: String? = nil) throws(PluginCreateError) {
        self.plugin = plugin
        self.id = id
        createdSampleRate = Self.provisionalSampleRate
        createdMaximumFrames = Self.provisionalMaximumFrames
        restoredState = state
        instance = try Self.instantiate(plugin, id: id, sampleRate: createdSampleRate, maximumFrames: createdMaximumFrames,
                                        state: state)
        inputCount = plugin.ports(.audioInput).count
        outputCount = plugin.ports(.audioOutput).count
        let parameters = plugin.parameters
        controlCount = parameters.count
        controlOutputPorts = plugin.ports.indices.filter { plugin.ports[$0].kind == .controlOutput }.map(Int32.init)
        latencyPort = plugin.ports.firstIndex { $0.kind == .controlOutput && $0.reportsLatency }.map(Int32.init) ?? -1
        inputs = .allocate(capacity: max(inputCount, 1))
        inputs.initialize(repeating: nil, count: max(inputCount, 1))
        outputs = .allocate(capacity: max(outputCount, 1))
        outputs.initialize(repeating: nil, count: max(outputCount, 1))
        controls = .allocate(capacity: max(controlCount, 1))
        controls.initialize(repeating: 0, count: max(controlCount, 1))
        for (index, spec) in parameters.enumerated() { controls[index] = spec.defaultValue }
        midi = .allocate(capacity: Self.midiCapacity)
        midi.initialize(repeating: iaa_fx_midi(), count: Self.midiCapacity)
        transport = .allocate(capacity: 1)
        transport.initialize(to: iaa_fx_transport())
    }

    deinit {
        if let instance { iaa_fx_instance_free(instance) }
        inputs.deallocate()
        outputs.deallocate()
        controls.deallocate()
        midi.deallocate()
        transport.deallocate()
    }

    /// Creates and activates an instance, and restores `state` into it before it first runs.
    private static func instantiate(_ plugin: FormatPlugin, id: String, sampleRate: Double, maximumFrames: Int,
                                    state: String?) throws(PluginCreateError) -> OpaquePointer {
        var instance: OpaquePointer?
        if let problem = FormatPlugin.withMessage({ message, capacity in
            instance = iaa_fx_instantiate(plugin.raw, sampleRate, UInt32(maximumFrames), message, capacity)
            return instance != nil
        }) {
            throw PluginCreateError(plugin: id, reason: problem)
        }
        guard let instance else { throw PluginCreateError(plugin: id, reason: "") }
        if let state, let problem = FormatPlugin.withMessage({ iaa_fx_state_restore(instance, state, $0, $1) != 0 }) {
            iaa_fx_instance_free(instance)
            throw PluginCreateError(plugin: id, reason: "cannot restore its state: \(problem)")
        }
        return instance
    }

    /// Creates the instance again when the rate differs from the provisional one or cycles are longer.
    public func prepare(sampleRate: Double, maximumFrames: Int) {
        guard instance == nil || sampleRate != createdSampleRate || maximumFrames > createdMaximumFrames else { return }
        // The new instance starts from the state the old one had, not from the plugin's default.
        if plugin.keepsState, let current = try? savedState() { restoredState = current }
        if let instance { iaa_fx_instance_free(instance) }
        instance = nil
        do {
            instance = try Self.instantiate(plugin, id: id, sampleRate: sampleRate, maximumFrames: maximumFrames,
                                            state: restoredState)
            failure = nil
        } catch {
            failure = error.description
        }
        createdSampleRate = sampleRate
        createdMaximumFrames = maximumFrames
    }

    /// Deactivates and activates the plugin (LV2 and LADSPA's reset). Control side.
    public func reset() {
        if let instance { iaa_fx_reset(instance) }
    }

    /// The plugin's control outputs by symbol (meters, latency), as last written by the audio
    /// thread. Control side; a value may be one cycle old.
    public var readings: [(name: String, value: Float)] {
        guard let instance else { return [] }
        return controlOutputPorts.map { port in
            (plugin.ports[Int(port)].symbol, iaa_fx_control(instance, port).pointee)
        }
    }

    /// The LV2 state now (Turtle), or nil for a plugin without state or with nothing to keep.
    public func savedState() throws(NodeStateError) -> String? {
        guard plugin.keepsState, let instance else { return nil }
        var text: UnsafeMutablePointer<CChar>?
        if let problem = FormatPlugin.withMessage({ message, capacity in
            text = iaa_fx_state_save(instance, message, capacity)
            return text != nil || message.pointee == 0
        }) {
            throw NodeStateError(problem)
        }
        guard let text else { return nil }
        defer { iaa_fx_string_free(text) }
        return String(cString: text)
    }

    /// Copies this cycle's buffers, parameter values, MIDI and transport, and runs the plugin.
    /// - Realtime: safe (no allocation, lock or retain; the plugin must keep its own promise).
    public func process(_ context: ProcessContext) {
        let frames = context.frames
        guard let instance, inputCount <= context.inputs.count, outputCount <= context.outputs.count else {
            for index in 0..<context.outputs.count { context.outputs[index].update(repeating: 0) }
            return
        }
        // A block-rate control would step once per cycle. While any parameter ramps, the cycle
        // runs in slices of `sliceFrames`, each with the ramp's value at its end, so the change
        // arrives as small steps (hosts split cycles at automation points the same way).
        var ramping = false
        for index in 0..<min(controlCount, context.parameters.count) where !context.parameters[index].isSteady {
            ramping = true
        }
        let events = min(context.midi.count, Self.midiCapacity)
        for index in 0..<events {
            let event = context.midi[index]
            midi[index] = iaa_fx_midi(frame: event.frame, size: event.size, status: event.status,
                                      data1: event.data1, data2: event.data2)
        }
        let host = context.transport
        transport.pointee = iaa_fx_transport(playing: host.isPlaying ? 1 : 0, tempo: host.tempo,
                                             beats_per_bar: host.beatsPerBar, beat: host.beat, bar_beat: host.beatInBar,
                                             bar: Int64(host.bar - 1), frame: host.sampleTime,
                                             next_frame: host.sampleTime + (host.isPlaying ? Int64(frames) : 0))
        let slice = ramping ? Self.sliceFrames : max(frames, 1)
        var start = 0
        var firstEvent = 0
        while start < frames {
            let length = min(slice, frames - start)
            for index in 0..<inputCount { inputs[index] = context.inputs[index].baseAddress.unsafelyUnwrapped + start }
            for index in 0..<outputCount { outputs[index] = context.outputs[index].baseAddress.unsafelyUnwrapped + start }
            for index in 0..<min(controlCount, context.parameters.count) {
                controls[index] = context.parameters[index][start + length]
            }
            // This slice's events, made relative to its first frame (they are in frame order).
            var lastEvent = firstEvent
            while lastEvent < events, Int(midi[lastEvent].frame) < start + length {
                midi[lastEvent].frame = max(midi[lastEvent].frame - Int32(start), 0)
                lastEvent += 1
            }
            iaa_fx_run(instance, UInt32(length), UnsafeRawPointer(inputs).assumingMemoryBound(to: UnsafePointer<Float>?.self),
                       UnsafeRawPointer(outputs).assumingMemoryBound(to: UnsafeMutablePointer<Float>?.self),
                       controls, midi + firstEvent, UInt32(lastEvent - firstEvent), start == 0 ? transport : nil)
            firstEvent = lastEvent
            start += length
        }
        if latencyPort >= 0 {
            let value = iaa_fx_control(instance, latencyPort).pointee
            // Clamped before the conversion: a plugin's garbage must not trap the audio thread.
            context.latency.report(frames: value.isFinite ? Int(min(max(value, 0), Float(1 << 24)).rounded()) : 0)
        }
    }
}
