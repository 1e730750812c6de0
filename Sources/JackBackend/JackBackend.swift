import RenderCore
import CJack
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs plans inside one JACK client: registers every exposed app port as `CLIENT:APP.PORT` with
/// patchbay metadata, renders in JACK's process callback, and makes external connections.
///
/// The only code in the project that calls libjack. Control-side methods must be called from one
/// thread (the engine's); the process callback touches only `JackCycle`.
public final class JackBackend: AudioBackend, @unchecked Sendable {
    public let clientName: String
    public let serverName: String?
    public let sampleRate: Double
    public private(set) var maximumFrames: Int
    private let client: OpaquePointer
    var clientHandle: OpaquePointer { client }
    var cycleState: JackCycle { cycle }
    private let cycle: JackCycle
    /// The worker threads of split cycles (JackBackend+Crew), stopped once no cycle runs.
    var crewOwner: RenderCrew?
    /// Port records by short name (`tone.out`); never freed while the client is open.
    private var records: [String: UnsafeMutablePointer<PortRecord>] = [:]
    /// Maps a JACK port to its record for the port-connect callback, which runs on JACK's own
    /// notification thread while the control side may be registering ports.
    private let recordsByPort = Mutex(PortMap())
    private(set) var active = false
    /// The current plan's latency paths, for JACK's latency callback (JackBackend+Latency).
    let latencyState = Mutex<LatencyState?>(nil)
    /// Called on JACK's notification thread when a connection to one of our ports is made or
    /// broken, by anyone: (source, destination, connected). Set before `activate`.
    public var onConnectionChange: (@Sendable (String, String, Bool) -> Void)?
    /// Called on JACK's notification thread when the buffer size changes. Set before `activate`.
    public var onBufferSizeChange: (@Sendable (Int) -> Void)?
    /// Called on JACK's notification thread when any client registers a port (its full name) or
    /// a client appears (its name). It must only note the fact: a server request from that thread
    /// (`jack_connect`, `jack_port_by_name`) can deadlock jack2. Set before `activate`.
    public var onRegistration: (@Sendable (String) -> Void)?
    /// Called on JACK's notification thread when a client leaves the server (its name), under the
    /// same rule as `onRegistration`. Set before `activate`.
    public var onClientGone: (@Sendable (String) -> Void)?
    /// Called on JACK's notification thread when two ports that are not ours are connected
    /// (source, destination): a program may be wiring itself past the engine. Same rule as
    /// `onRegistration`. Set before `activate`.
    public var onOutsideConnection: (@Sendable (String, String) -> Void)?

    /// Opens the client with an exact name and never starts a server: JACK would otherwise rename a second `iaa` to `iaa-01` and break every connection.
    public init(clientName: String, serverName: String?, probe: RealtimeProbe = .disabled) throws(JackError) {
        JackBackend.quietLibraryMessages()
        let client = try JackBackend.open(clientName, serverName: serverName)
        self.client = client
        self.clientName = String(cString: jack_get_client_name(client))
        self.serverName = serverName
        sampleRate = Double(jack_get_sample_rate(client))
        maximumFrames = Int(jack_get_buffer_size(client))
        cycle = JackCycle(probe: probe)
        cycle.client = client
        cycle.sampleRate = Int64(sampleRate)
        installCallbacks()
    }

    deinit {
        close()
    }

    /// Opens a client, telling a taken name from a missing server: jack2 reports both as a server
    /// failure, so when a throwaway name connects, the real name is tried once more before it is
    /// called taken (the server may just have come up).
    static func open(_ clientName: String, serverName: String?) throws(JackError) -> OpaquePointer {
        let options = jack_options_t(JackNoStartServer.rawValue | JackUseExactName.rawValue)
        var status = jack_status_t(0)
        if let client = CJack_client_open(clientName, options, &status, serverName) { return client }
        let error = JackError.openFailed(client: clientName, server: serverName, status: status)
        guard error.code == .serverNotRunning, serverAnswers(serverName) else { throw error }
        if let client = CJack_client_open(clientName, options, &status, serverName) { return client }
        throw JackError.openFailed(client: clientName, server: serverName,
                                   status: jack_status_t(JackNameNotUnique.rawValue | JackFailure.rawValue))
    }

    /// True when a client under a throwaway name can connect to the server.
    static func serverAnswers(_ serverName: String?) -> Bool {
        var status = jack_status_t(0)
        let options = jack_options_t(JackNoStartServer.rawValue | JackUseExactName.rawValue)
        guard let probe = CJack_client_open("iaa-probe-\(getpid())", options, &status, serverName) else { return false }
        jack_client_close(probe)
        return true
    }

    /// libjack prints its own lines ("Cannot connect to server socket …") on stderr; our errors say
    /// what happened and what to do, so those lines are only noise for users. The last error line
    /// is kept: when a call fails without the server logging why (`jack_activate`), it is the
    /// only account of the cause. libjack reports errors from its own threads, rarely and never
    /// from our process callback, and its default handler writes to stderr there anyway.
    static func quietLibraryMessages() {
        jack_set_error_function { message in
            guard let message else { return }
            let line = String(cString: message)
            JackBackend.lastLibraryError.withLock { $0 = line }
        }
        jack_set_info_function { _ in }
    }

    /// libjack's last error line (see `quietLibraryMessages`).
    static let lastLibraryError = Mutex<String?>(nil)

    /// Held around every call that asks the server something. libjack writes a client's
    /// requests to one socket and reads each reply right after, with no lock of its own, so two
    /// threads asking at once can each read the other's reply. That was the intermittent
    /// `jack_activate failed` with nothing in libjack's or jackd's words but "already connected":
    /// activating announces our ports, the announcements make the control queue connect the
    /// graph's JACK rules, and `jack_activate` on the starting thread read the reply to one of
    /// those connects. The audio and notification threads never ask the server.
    private let serverRequests = Mutex<Void>(())

    /// Runs `request`, a libjack call that asks the server, alone among this client's requests.
    func askingServer<T>(_ request: () -> T) -> T {
        serverRequests.withLock { _ in request() }
    }

    // MARK: Plans and ports

    /// Registers the plan's ports that are not registered yet, binds them, and publishes the plan.
    public func install(_ plan: RenderPlan) throws {
        for (index, port) in plan.externalPorts.enumerated() {
            let record = try records[port.shortName] ?? register(port)
            plan.backendHandles[index] = UnsafeMutableRawPointer(record)
        }
        crewOwner?.decide(plan, periodNanoseconds: Double(currentBufferSize) * 1e9 / sampleRate)
        cycle.exchange.publish(plan)
        tellLatency(of: plan)
    }

    /// The tempo and meter nodes see when JACK's transport has no bar/beat information. Call it
    /// before `activate` (the audio thread reads these without synchronisation).
    public func setDefaultTempo(_ tempo: Double, beatsPerBar: Double) {
        cycle.defaultTempo = tempo
        cycle.defaultBeatsPerBar = beatsPerBar
    }

    /// The share of the period (0 < share ≤ 1) one node may take in 3 consecutive cycles before
    /// the engine bypasses or mutes it; 0 turns the guard off. Call it before `activate`.
    public func setDeadlineShare(_ share: Double) {
        cycle.deadlineShare = share
    }

    /// The plan being rendered (control side, for lookups).
    public var currentPlan: RenderPlan? { cycle.exchange.currentPlan }

    /// Frees plans the audio thread has moved past, then unregisters ports no plan uses any more
    /// (apps removed by a new graph). Call periodically from the control side.
    public func collectRetiredPlans() {
        guard cycle.exchange.collect(audioStopped: !active) == 0, let plan = cycle.exchange.currentPlan,
              plan.generation != sweptGeneration || records.count != sweptRecordCount else { return }
        let used = Set(plan.externalPorts.map(\.shortName))
        for (name, record) in records where !used.contains(name) {
            let port = record.pointee.port
            recordsByPort.withLock { $0.records[port] = nil }
            // The server removes the port's metadata as it unregisters it (see `close`).
            askingServer { jack_port_unregister(client, port) }
            record.deinitialize(count: 1)
            record.deallocate()
            records[name] = nil
        }
        sweptGeneration = plan.generation
        sweptRecordCount = records.count
    }

    /// The plan and the number of port records the last sweep for unused ports saw. Ports are
    /// registered only by `install`, so nothing can be unused until one of them changes; the
    /// sweep (a set of every port name, hashed) ran on every control tick before: a visible part
    /// in perf of what the control thread costs while a graph just plays.
    private var sweptGeneration: UInt64?
    private var sweptRecordCount = -1

    private func register(_ port: ExternalPort) throws(JackError) -> UnsafeMutablePointer<PortRecord> {
        let flags = port.direction == .input ? CJack_port_is_input() : CJack_port_is_output()
        let type = port.kind == .midi ? CJack_default_midi_type() : CJack_default_audio_type()
        guard let handle = askingServer({ jack_port_register(client, port.shortName, type, flags, 0) }) else {
            throw JackError(code: .portRegistrationFailed,
                            message: "cannot register JACK port '\(clientName):\(port.shortName)'",
                            hint: "the name may be too long or already taken")
        }
        let record = UnsafeMutablePointer<PortRecord>.allocate(capacity: 1)
        record.initialize(to: PortRecord(port: handle))
        records[port.shortName] = record
        recordsByPort.withLock { $0.records[handle] = record }
        setMetadata(handle, port)
        // Before activation, `activate` counts every port's connections once: asking here would
        // wait for the registration to reach the graph (libjack sleeps 1.1 periods while a graph
        // change is pending), ~6 ms a port at 256 frames, 54 of the 200 ms that graphs/demo.json's
        // engine took to start.
        if active { refreshConnectionCount(handle) }
        return record
    }

    /// Pretty name, group, order and signal type, so patchbays show "tone › Output".
    private func setMetadata(_ handle: OpaquePointer, _ port: ExternalPort) {
        let uuid = jack_port_uuid(handle)
        askingServer {
            jack_set_property(client, uuid, CJack_pretty_name_key(), "\(port.appID) › \(port.displayName)", "text/plain")
            jack_set_property(client, uuid, CJack_port_group_key(), port.group ?? port.appID, "text/plain")
            jack_set_property(client, uuid, CJack_order_key(), String(port.order),
                              "http://www.w3.org/2001/XMLSchema#integer")
            if port.kind == .audio { jack_set_property(client, uuid, CJack_signal_type_key(), "AUDIO", "text/plain") }
        }
    }

    private func refreshConnectionCount(_ handle: OpaquePointer) {
        let count = jack_port_connected(handle)
        recordsByPort.withLock { $0.records[handle]?.pointee.connections.store(count, ordering: .relaxed) }
    }

    /// The JACK port of one of our registered ports, by short name (`tone.out`).
    func port(named shortName: String) -> OpaquePointer? {
        records[shortName]?.pointee.port
    }

    /// The full JACK name of one of our ports (`iaa:tone.out`).
    public func fullName(_ shortName: String) -> String { "\(clientName):\(shortName)" }

    // MARK: Lifecycle

    /// Starts processing. JACK calls the process callback from now on.
    public func activate() throws(JackError) {
        Self.lastLibraryError.withLock { $0 = nil }
        guard askingServer({ jack_activate(client) }) == 0 else {
            let cause = Self.lastLibraryError.withLock { $0 }.map { " (libjack: \($0))" } ?? ""
            throw JackError(code: .activateFailed, message: "jack_activate failed for client '\(clientName)'\(cause)",
                            hint: "see the JACK server's log")
        }
        active = true
        for record in records.values { refreshConnectionCount(record.pointee.port) }
        if let plan = currentPlan { tellLatency(of: plan, force: true) }
    }

    /// Gives up a client whose server died without calling into libjack again; its memory is
    /// kept (the dead client's callbacks may still hold it).
    public func abandon() {
        closed = true
        crewOwner?.abandon()
    }

    /// Stops processing and closes the client, which unregisters every port.
    ///
    /// The ports' metadata is not removed here: jackd removes a port's properties itself when it
    /// unregisters the port, a closed client's and a killed one's alike. `jack_remove_properties`
    /// scans jack2's whole metadata database for each port it is given, so removing 2,000 ports'
    /// took longer than the bound `LiveEngine.close(_:within:)` gives the close; the process then
    /// exited inside a scan, with a lock of the database (one per user, in /dev/shm) held for
    /// good, and every later JACK client of the user hung (docs/reliability.md). The stop makes no
    /// metadata call now, so it cannot leave the database locked, whenever its bound ends it.
    public func close() {
        guard !closed else { return }
        closed = true
        askingServer {
            if active { jack_deactivate(client) }
            jack_client_close(client)
        }
        active = false
        crewOwner?.stop()
        cycle.exchange.collect(audioStopped: true)
        for record in records.values {
            record.deinitialize(count: 1)
            record.deallocate()
        }
        records = [:]
    }
    private var closed = false

    /// True once JACK told us the server went away.
    public var serverWasShutDown: Bool { cycle.shutDown.load(ordering: .acquiring) }
    /// Xruns the server reported since activation.
    public var xrunCount: Int64 { cycle.xruns.load(ordering: .relaxed) }
    /// Cycles rendered since activation.
    public var cycleCount: Int64 { cycle.cycles.load(ordering: .relaxed) }
    /// The counter's totals when the real-time probe is armed.
    public var probeCounts: (mallocs: Int, retains: Int)? { cycle.probe.counts() }
    /// JACK's current buffer size (may differ from `maximumFrames` after a change).
    public var currentBufferSize: Int { Int(jack_get_buffer_size(client)) }

    /// Port records by JACK port. The records are written only through their atomics, so
    /// sharing the pointers between JACK's notification thread and the control side is sound.
    struct PortMap: @unchecked Sendable {
        var records: [OpaquePointer: UnsafeMutablePointer<PortRecord>] = [:]
    }

    // MARK: Callbacks

    private func installCallbacks() {
        let cycleArg = Unmanaged.passUnretained(cycle).toOpaque()
        jack_set_process_callback(client, { frames, arg in
            guard let arg else { return 0 }
            Unmanaged<JackCycle>.fromOpaque(arg)._withUnsafeGuaranteedRef { $0.process(frames: Int(frames)) }
            return 0
        }, cycleArg)
        jack_set_xrun_callback(client, { arg in
            guard let arg else { return 0 }
            Unmanaged<JackCycle>.fromOpaque(arg)._withUnsafeGuaranteedRef { $0.noteXrun() }
            return 0
        }, cycleArg)
        // Only a flag: closing the client from JACK's own thread is not allowed.
        jack_on_info_shutdown(client, { _, _, arg in
            guard let arg else { return }
            Unmanaged<JackCycle>.fromOpaque(arg)._withUnsafeGuaranteedRef { $0.shutDown.store(true, ordering: .releasing) }
        }, cycleArg)
        jack_set_port_connect_callback(client, { a, b, connected, arg in
            guard let arg else { return }
            let backend = Unmanaged<JackBackend>.fromOpaque(arg).takeUnretainedValue()
            var ours = false
            for id in [a, b] {
                if let port = jack_port_by_id(backend.client, id), jack_port_is_mine(backend.client, port) != 0 {
                    backend.refreshConnectionCount(port)
                    ours = true
                }
            }
            if !ours {
                guard connected != 0, let report = backend.onOutsideConnection,
                      let source = jack_port_by_id(backend.client, a), let destination = jack_port_by_id(backend.client, b),
                      let sourceName = jack_port_name(source), let destinationName = jack_port_name(destination) else { return }
                report(String(cString: sourceName), String(cString: destinationName))
                return
            }
            guard let report = backend.onConnectionChange,
                  let source = jack_port_by_id(backend.client, a), let destination = jack_port_by_id(backend.client, b),
                  let sourceName = jack_port_name(source), let destinationName = jack_port_name(destination) else { return }
            report(String(cString: sourceName), String(cString: destinationName), connected != 0)
        }, Unmanaged.passUnretained(self).toOpaque())
        installRegistrationCallbacks()
        installLatencyCallback()
        jack_set_buffer_size_callback(client, { frames, arg in
            guard let arg else { return 0 }
            Unmanaged<JackBackend>.fromOpaque(arg).takeUnretainedValue().onBufferSizeChange?(Int(frames))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

}

extension JackBackend {
    /// The SCHED_FIFO priority JACK gives our audio thread, or nil when it does not run real-time
    /// (an isolated node's child asks for the same, to answer within the cycle).
    public var realtimePriority: Int32? {
        guard jack_is_realtime(client) != 0 else { return nil }
        let priority = jack_client_real_time_priority(client)
        return priority > 0 ? priority : nil
    }

    /// The `pthread_t` of the thread JACK runs our process callback on (valid once active).
    public var audioThread: UInt {
        UInt(jack_client_thread_id(client))
    }
}
