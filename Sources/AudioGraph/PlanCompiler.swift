import NodeKit

/// Turns a validated `Graph` and its node slots into a `RenderPlan`. Control side only.
///
/// Everything is decided here so the audio thread only follows pointers: buffer addresses, which
/// sources sum into which input, which ports the backend exposes.
public enum PlanCompiler {
    /// Floats per buffer are rounded up to a cache line so every buffer starts 64-byte aligned.
    static let alignmentFloats = 16
    /// MIDI messages one app can receive in one cycle.
    static let midiCapacity = 512

    /// Compiles `graph`. `slots[i]` renders `graph.apps[i]`.
    public static func compile(_ graph: Graph, slots: [NodeSlot], sampleRate: Double,
                               maximumFrames: Int, generation: UInt64) -> RenderPlan {
        precondition(slots.count == graph.apps.count, "one slot per app")
        precondition(maximumFrames > 0, "maximumFrames must be positive")
        let stride = (maximumFrames + alignmentFloats - 1) / alignmentFloats * alignmentFloats
        let inputTotal = graph.apps.reduce(0) { $0 + $1.layout.inputs.count }
        let outputTotal = graph.apps.reduce(0) { $0 + $1.layout.outputs.count }
        let bufferCount = outputTotal + inputTotal + 1
        let arena = UnsafeMutableRawPointer.allocate(byteCount: bufferCount * stride * 4, alignment: 64)
        let floats = arena.initializeMemory(as: Float.self, repeating: 0, count: bufferCount * stride)
        var nextBuffer = 0
        func takeBuffer() -> UnsafeMutablePointer<Float> {
            defer { nextBuffer += 1 }
            return floats + nextBuffer * stride
        }
        let silence = takeBuffer()

        // Output buffers first: inputs refer to them.
        var outputBuffer: [[UnsafeMutablePointer<Float>]] = []
        var outputBuffers: [String: UnsafeMutablePointer<Float>] = [:]
        for app in graph.apps {
            let buffers = app.layout.outputs.map { _ in takeBuffer() }
            for (port, buffer) in zip(app.layout.outputs, buffers) { outputBuffers["\(app.id):\(port.name)"] = buffer }
            outputBuffer.append(buffers)
        }
        let exposure = exposedPorts(graph)
        var sourcesByInput: [PortAddress: [MixSource]] = [:]
        for connection in graph.connections {
            let buffer = outputBuffer[connection.from.app][connection.from.port]
            sourcesByInput[connection.to, default: []].append(MixSource(buffer: buffer, gain: connection.gain))
        }

        // One MIDI buffer per app with a MIDI input, in app order.
        var midiIndexOfApp: [Int: Int] = [:]
        for (appIndex, app) in graph.apps.enumerated() where !app.layout.midiInputs.isEmpty {
            midiIndexOfApp[appIndex] = midiIndexOfApp.count
        }
        let midiBuffers = UnsafeMutableBufferPointer<MIDIBuffer>.allocate(capacity: max(midiIndexOfApp.count, 1))
        for index in midiIndexOfApp.values {
            let events = UnsafeMutablePointer<MIDIEvent>.allocate(capacity: midiCapacity)
            events.initialize(repeating: MIDIEvent(frame: 0, status: 0), count: midiCapacity)
            midiBuffers.initializeElement(at: index, to: MIDIBuffer(events: events, capacity: midiCapacity, count: 0))
        }
        let steps = UnsafeMutableBufferPointer<RenderStep>.allocate(capacity: graph.order.count)
        let inputs = UnsafeMutableBufferPointer<InputMix>.allocate(capacity: max(inputTotal, 1))
        let sources = UnsafeMutableBufferPointer<MixSource>.allocate(capacity: max(graph.connections.count, 1))
        let inputPointers = UnsafeMutableBufferPointer<UnsafePointer<Float>>.allocate(capacity: max(inputTotal, 1))
        let outputPointers = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: max(outputTotal, 1))
        var inputCursor = 0, sourceCursor = 0, outputCursor = 0
        for (stepIndex, appIndex) in graph.order.enumerated() {
            let app = graph.apps[appIndex]
            let inputStart = inputCursor, outputStart = outputCursor
            for port in app.layout.inputs.indices {
                let address = PortAddress(app: appIndex, port: port)
                let feeds = sourcesByInput[address] ?? []
                let sourceStart = sourceCursor
                for feed in feeds {
                    sources.initializeElement(at: sourceCursor, to: feed)
                    sourceCursor += 1
                }
                inputs.initializeElement(at: inputCursor, to: InputMix(
                    mixBuffer: takeBuffer(), sourceStart: sourceStart, sourceCount: feeds.count,
                    externalIndex: exposure.inputIndex[address] ?? -1, programEnd: app.layout.inputs[port].programEnd))
                inputPointers.initializeElement(at: inputCursor, to: UnsafePointer(silence))
                inputCursor += 1
            }
            for buffer in outputBuffer[appIndex] {
                outputPointers.initializeElement(at: outputCursor, to: buffer)
                outputCursor += 1
            }
            steps.initializeElement(at: stepIndex, to: RenderStep(
                slot: .passUnretained(slots[appIndex]), inputStart: inputStart,
                inputCount: inputCursor - inputStart, outputStart: outputStart,
                outputCount: outputCursor - outputStart, midiIndex: midiIndexOfApp[appIndex] ?? -1,
                node: slots[appIndex].nodeAddress, ramps: UnsafeRawPointer(slots[appIndex].ramps)))
        }

        let externalInputs = UnsafeMutableBufferPointer<UnsafePointer<Float>?>.allocate(capacity: max(exposure.inputs.count, 1))
        externalInputs.initialize(repeating: nil)
        let externalOutputs = UnsafeMutableBufferPointer<UnsafePointer<Float>>.allocate(capacity: max(exposure.outputs.count, 1))
        for (index, address) in exposure.outputs.enumerated() {
            externalOutputs.initializeElement(at: index, to: UnsafePointer(outputBuffer[address.app][address.port]))
        }
        let tables = PlanTables(
            steps: steps, inputs: UnsafeMutableBufferPointer(rebasing: inputs[0..<inputTotal]),
            sources: UnsafeMutableBufferPointer(rebasing: sources[0..<graph.connections.count]),
            inputPointers: inputPointers, outputPointers: outputPointers,
            externalInputs: UnsafeMutableBufferPointer(rebasing: externalInputs[0..<exposure.inputs.count]),
            externalOutputs: UnsafeMutableBufferPointer(rebasing: externalOutputs[0..<exposure.outputs.count]),
            externalPorts: exposure.ports, silence: silence, arena: arena, outputBuffers: outputBuffers,
            midiBuffers: UnsafeMutableBufferPointer(rebasing: midiBuffers[0..<midiIndexOfApp.count]),
            midiIndexOfApp: Dictionary(uniqueKeysWithValues: midiIndexOfApp.map { (graph.apps[$0.key].id, $0.value) }))
        return RenderPlan(generation: generation, sampleRate: sampleRate, maximumFrames: maximumFrames,
                          tables: tables, slots: slots)
    }

    /// Which app ports the backend exposes, and their indices in the external tables.
    struct Exposure {
        var inputs: [PortAddress] = []
        var outputs: [PortAddress] = []
        var inputIndex: [PortAddress: Int] = [:]
        var ports: [ExternalPort] = []
    }

    /// The ports `graph.exposure` selects (every app port by default), so `jack_lsp` lists them
    /// and anything can be wired to them.
    static func exposedPorts(_ graph: Graph) -> Exposure {
        let exposure = graph.exposure
        var result = Exposure()
        var inputPorts: [ExternalPort] = [], outputPorts: [ExternalPort] = []
        var order = 0
        for (appIndex, app) in graph.apps.enumerated() {
            for (portIndex, spec) in app.layout.inputs.enumerated() where exposure.exposes(app: appIndex, .input, port: portIndex) {
                let address = PortAddress(app: appIndex, port: portIndex)
                result.inputIndex[address] = result.inputs.count
                result.inputs.append(address)
                inputPorts.append(ExternalPort(appID: app.id, portName: spec.name, displayName: spec.displayName,
                                               group: spec.group, direction: .input, order: order, kind: .audio,
                                               midiIndex: -1))
                order += 1
            }
            for (portIndex, spec) in app.layout.outputs.enumerated() where exposure.exposes(app: appIndex, .output, port: portIndex) {
                result.outputs.append(PortAddress(app: appIndex, port: portIndex))
                outputPorts.append(ExternalPort(appID: app.id, portName: spec.name, displayName: spec.displayName,
                                                group: spec.group, direction: .output, order: order, kind: .audio,
                                                midiIndex: -1))
                order += 1
            }
        }
        // MIDI inputs of one app all feed that app's buffer (numbered as the compiler numbers them).
        var midiPorts: [ExternalPort] = []
        var midiApps = 0
        for (appIndex, app) in graph.apps.enumerated() where !app.layout.midiInputs.isEmpty {
            for (portIndex, spec) in app.layout.midiInputs.enumerated() where exposure.exposes(app: appIndex, .midiInput, port: portIndex) {
                midiPorts.append(ExternalPort(appID: app.id, portName: spec.name, displayName: spec.displayName,
                                              group: spec.group, direction: .input, order: order, kind: .midi,
                                              midiIndex: midiApps))
                order += 1
            }
            midiApps += 1
        }
        result.ports = inputPorts + outputPorts + midiPorts
        return result
    }
}
