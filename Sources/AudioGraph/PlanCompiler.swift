import RenderCore
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

    /// Compiles `graph`. `slots[i]` renders `graph.apps[i]`; `lines.connections[c]` delays
    /// connection `c` by `latency.delay[c]`, `lines.outside[i]` the outside signal entering app
    /// input `i` by its app's `latency.outsideDelay` (nil where there is no delay; no lines: no
    /// compensation).
    public static func compile(_ graph: Graph, slots: [NodeSlot], sampleRate: Double,
                               maximumFrames: Int, generation: UInt64, latency: GraphLatency? = nil,
                               lines: CompensationLineSet? = nil) -> RenderPlan {
        precondition(slots.count == graph.apps.count, "one slot per app")
        let latency = latency ?? .none(graph)
        let lineSet = lines ?? .none(graph)
        let lines = lineSet.connections, outsideLines = lineSet.outside
        precondition(lines.count == graph.connections.count, "one line (or none) per connection")
        precondition(maximumFrames > 0, "maximumFrames must be positive")
        let stride = (maximumFrames + alignmentFloats - 1) / alignmentFloats * alignmentFloats
        // Every app's inputs numbered in app order (`inputBase[app] + port`), so that what is
        // kept per input is an array, not a dictionary keyed by address. Apps are read in place
        // throughout: iterating `graph.apps` copied each app, its layout and its strings.
        var inputBase: [Int] = []
        inputBase.reserveCapacity(graph.apps.count + 1)
        var inputTotal = 0, outputTotal = 0
        for index in graph.apps.indices {
            inputBase.append(inputTotal)
            inputTotal += graph.apps[index].layout.inputs.count
            outputTotal += graph.apps[index].layout.outputs.count
        }
        inputBase.append(inputTotal)
        precondition(outsideLines.count == inputTotal, "one line (or none) per app input")
        let delayed = lines.reduce(0) { $0 + ($1 == nil ? 0 : 1) } + outsideLines.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        let bufferCount = outputTotal + inputTotal + delayed + 1
        let arena = UnsafeMutableRawPointer.allocate(byteCount: bufferCount * stride * 4, alignment: 64)
        let floats = arena.initializeMemory(as: Float.self, repeating: 0, count: bufferCount * stride)
        var nextBuffer = 0
        func takeBuffer() -> UnsafeMutablePointer<Float> {
            defer { nextBuffer += 1 }
            return floats + nextBuffer * stride
        }
        let silence = takeBuffer()
        // The order steps run in: the graph's, with isolated apps that are free together in waves.
        let (order, waveEnd) = WaveOrder.make(graph, phased: slots.map(\.isPhased))
        var stepOfApp = Array(repeating: 0, count: graph.apps.count)
        for (step, app) in order.enumerated() { stepOfApp[app] = step }

        // Output buffers first: inputs refer to them.
        var outputBuffer: [[UnsafeMutablePointer<Float>]] = []
        outputBuffer.reserveCapacity(graph.apps.count)
        var outputBuffers: [String: UnsafeMutablePointer<Float>] = [:]
        outputBuffers.reserveCapacity(outputTotal)
        for index in graph.apps.indices {
            let ports = graph.apps[index].layout.outputs
            let buffers = ports.map { _ in takeBuffer() }
            for (port, buffer) in zip(ports, buffers) { outputBuffers[graph.apps[index].id + ":" + port.name] = buffer }
            outputBuffer.append(buffers)
        }
        // What a delayed connection's input reads: the line's output, a buffer of its own.
        let delayedBuffer: [UnsafeMutablePointer<Float>?] = lines.map { $0 == nil ? nil : takeBuffer() }
        let exposure = exposedPorts(graph, inputBase: inputBase)
        // Each input's sources, counted, then placed in connection order; inputs take their
        // ranges in the order the steps run, so that the audio thread reads the table forwards.
        var sourceCounts = Array(repeating: 0, count: inputTotal)
        for connection in graph.connections { sourceCounts[inputBase[connection.to.app] + connection.to.port] += 1 }
        var sourceStarts = Array(repeating: 0, count: inputTotal)
        var sourceCursor = 0
        for appIndex in order {
            for input in inputBase[appIndex]..<inputBase[appIndex + 1] {
                sourceStarts[input] = sourceCursor
                sourceCursor += sourceCounts[input]
            }
        }
        var placed = sourceStarts
        let sources = UnsafeMutableBufferPointer<MixSource>.allocate(capacity: max(graph.connections.count, 1))
        // Which connection each placed source is, for the delay steps below.
        var sourceConnection = Array(repeating: 0, count: graph.connections.count)
        for (index, connection) in graph.connections.enumerated() {
            let input = inputBase[connection.to.app] + connection.to.port
            let buffer = delayedBuffer[index].map { UnsafePointer($0) } ?? UnsafePointer(outputBuffer[connection.from.app][connection.from.port])
            sources.initializeElement(at: placed[input], to: MixSource(buffer: buffer, gain: connection.gain))
            sourceConnection[placed[input]] = index
            placed[input] += 1
        }
        let delays = UnsafeMutableBufferPointer<DelayStep>.allocate(capacity: max(delayed, 1))
        var delayCursor = 0

        // One MIDI buffer per app with a MIDI input, in app order.
        var midiIndexOfApp = Array(repeating: -1, count: graph.apps.count)
        var midiApps = 0
        for index in graph.apps.indices where !graph.apps[index].layout.midiInputs.isEmpty {
            midiIndexOfApp[index] = midiApps
            midiApps += 1
        }
        let midiBuffers = UnsafeMutableBufferPointer<MIDIBuffer>.allocate(capacity: max(midiApps, 1))
        for index in 0..<midiApps {
            let events = UnsafeMutablePointer<MIDIEvent>.allocate(capacity: midiCapacity)
            events.initialize(repeating: MIDIEvent(frame: 0, status: 0), count: midiCapacity)
            midiBuffers.initializeElement(at: index, to: MIDIBuffer(events: events, capacity: midiCapacity, count: 0))
        }
        let steps = UnsafeMutableBufferPointer<RenderStep>.allocate(capacity: order.count)
        let inputs = UnsafeMutableBufferPointer<InputMix>.allocate(capacity: max(inputTotal, 1))
        let inputPointers = UnsafeMutableBufferPointer<UnsafePointer<Float>>.allocate(capacity: max(inputTotal, 1))
        let outputPointers = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: max(outputTotal, 1))
        let mixedInputs = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(inputTotal, 1))
        var inputCursor = 0, outputCursor = 0, mixedCursor = 0
        for (stepIndex, appIndex) in order.enumerated() {
            let inputStart = inputCursor, outputStart = outputCursor, mixStart = mixedCursor, delayStart = delayCursor
            for port in graph.apps[appIndex].layout.inputs.indices {
                let input = inputBase[appIndex] + port
                for placedIndex in sourceStarts[input]..<(sourceStarts[input] + sourceCounts[input]) {
                    let connection = sourceConnection[placedIndex]
                    guard let line = lines[connection] else { continue }
                    let from = graph.connections[connection].from
                    delays.initializeElement(at: delayCursor, to: DelayStep(
                        state: line.state, source: UnsafePointer(outputBuffer[from.app][from.port]),
                        output: delayedBuffer[connection].unsafelyUnwrapped,
                        delay: latency.delay[connection], externalIndex: -1))
                    delayCursor += 1
                }
                // The outside signal's line, when the backend exposes this input and its app's
                // paths arrive later than the graph's entry.
                var outsideDelay: Int32 = -1
                if let line = outsideLines[input], exposure.inputIndex[input] >= 0 {
                    outsideDelay = Int32(delayCursor)
                    delays.initializeElement(at: delayCursor, to: DelayStep(
                        state: line.state, source: UnsafePointer(silence), output: takeBuffer(),
                        delay: latency.outsideDelay(appIndex), externalIndex: Int32(exposure.inputIndex[input])))
                    delayCursor += 1
                }
                var unmixed: UnsafePointer<Float>? = nil
                if sourceCounts[input] == 0 {
                    unmixed = UnsafePointer(silence)
                } else if sourceCounts[input] == 1, sources[sourceStarts[input]].gain == 1 {
                    unmixed = sources[sourceStarts[input]].buffer
                }
                let mix = InputMix(
                    mixBuffer: takeBuffer(), sourceStart: sourceStarts[input], sourceCount: sourceCounts[input],
                    externalIndex: exposure.inputIndex[input], programEnd: graph.apps[appIndex].layout.inputs[port].programEnd,
                    unmixed: unmixed, outsideDelay: outsideDelay)
                inputs.initializeElement(at: inputCursor, to: mix)
                inputPointers.initializeElement(at: inputCursor, to: mix.quietPointer)
                if unmixed == nil {
                    mixedInputs.initializeElement(at: mixedCursor, to: Int32(inputCursor))
                    mixedCursor += 1
                }
                inputCursor += 1
            }
            for buffer in outputBuffer[appIndex] {
                outputPointers.initializeElement(at: outputCursor, to: buffer)
                outputCursor += 1
            }
            steps.initializeElement(at: stepIndex, to: RenderStep(
                slot: .passUnretained(slots[appIndex]),
                node: slots[appIndex].steadyCycle.map { UnsafeRawPointer($0.state) } ?? slots[appIndex].nodeAddress,
                ramps: UnsafeRawPointer(slots[appIndex].ramps), inputStart: Int32(inputStart),
                inputCount: Int32(inputCursor - inputStart), outputStart: Int32(outputStart),
                outputCount: Int32(outputCursor - outputStart), midiIndex: Int32(midiIndexOfApp[appIndex]),
                mixStart: Int32(mixStart), mixCount: Int32(mixedCursor - mixStart),
                delayStart: Int32(delayStart), delayCount: Int32(delayCursor - delayStart), waveEnd: waveEnd[stepIndex]))
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
            inputPointers: inputPointers, mixedInputs: UnsafeMutableBufferPointer(rebasing: mixedInputs[0..<mixedCursor]),
            outputPointers: outputPointers,
            externalInputs: UnsafeMutableBufferPointer(rebasing: externalInputs[0..<exposure.inputs.count]),
            externalOutputs: UnsafeMutableBufferPointer(rebasing: externalOutputs[0..<exposure.outputs.count]),
            externalPorts: exposure.ports, silence: silence, arena: arena, outputBuffers: outputBuffers,
            midiBuffers: UnsafeMutableBufferPointer(rebasing: midiBuffers[0..<midiApps]),
            midiIndexOfApp: Dictionary(uniqueKeysWithValues: midiIndexOfApp.indices.filter { midiIndexOfApp[$0] >= 0 }
                .map { (graph.apps[$0].id, midiIndexOfApp[$0]) }),
            delays: UnsafeMutableBufferPointer(rebasing: delays[0..<delayCursor]), latency: latency,
            latencyPaths: LatencyPaths(graph, latency: latency, ports: exposure.ports), lines: lineSet.all,
            stepConnections: graph.connections.map { (from: stepOfApp[$0.from.app], to: stepOfApp[$0.to.app]) })
        return RenderPlan(generation: generation, sampleRate: sampleRate, maximumFrames: maximumFrames,
                          tables: tables, slots: slots)
    }

    /// The ports a plan for `graph` exposes, in the plan's order (`RenderPlan.externalPorts`).
    public static func externalPorts(of graph: Graph) -> [ExternalPort] {
        var inputBase = [0]
        for app in graph.apps { inputBase.append(inputBase[inputBase.count - 1] + app.layout.inputs.count) }
        return exposedPorts(graph, inputBase: inputBase).ports
    }

    /// Which app ports the backend exposes, and their indices in the external tables.
    struct Exposure {
        var inputs: [PortAddress] = []
        var outputs: [PortAddress] = []
        /// By input in app order (`inputBase[app] + port`): its index among `inputs`, or -1.
        var inputIndex: [Int] = []
        var ports: [ExternalPort] = []
    }

    /// The ports `graph.exposure` selects (every app port by default), so `jack_lsp` lists them
    /// and anything can be wired to them.
    static func exposedPorts(_ graph: Graph, inputBase: [Int]) -> Exposure {
        let exposure = graph.exposure
        var result = Exposure()
        result.inputIndex = Array(repeating: -1, count: inputBase.last ?? 0)
        var inputPorts: [ExternalPort] = [], outputPorts: [ExternalPort] = []
        var order = 0
        for appIndex in graph.apps.indices {
            let app = graph.apps[appIndex]
            for (portIndex, spec) in app.layout.inputs.enumerated() where exposure.exposes(app: appIndex, .input, port: portIndex) {
                let address = PortAddress(app: appIndex, port: portIndex)
                result.inputIndex[inputBase[appIndex] + portIndex] = result.inputs.count
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
