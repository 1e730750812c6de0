import AudioSession
import NodeKit

/// A graph that passed validation: every id resolved, every port exists, no cycle.
///
/// It is what the compiler turns into a `RenderPlan`; nothing in it can fail later.
public struct Graph: Sendable {
    public let name: String
    /// The apps in file order; `PortAddress.app` indexes this array.
    public internal(set) var apps: [App]
    /// Internal connections between app ports.
    public let connections: [Connection]
    /// Connections between app ports and ports outside the engine (the sound card, other programs).
    public let externalConnections: [ExternalConnection]
    /// App indices in an order where every app comes after the apps that feed it.
    public let order: [Int]
    /// The graph's `policy` block: duck level, gain ramp time, background task allowance.
    public let policy: PolicyConfiguration
    /// The graph's `transport` block: the host tempo and meter.
    public let transport: TransportConfiguration
    /// Which app ports are JACK ports (`jack.expose`).
    public let exposure: PortExposure
    /// The graph's `isolation` block: the default for its apps and when a faulting child stays off.
    public let isolation: IsolationConfiguration
    /// The graph's `programs.admit` block: which programs it does not name become apps, with
    /// what session and where they are heard; nil refuses them (docs/programs.md).
    public let admission: ProgramAdmission?
    /// The graph's `latency` block: whether paths that meet are aligned (docs/latency.md).
    public let latency: LatencyConfiguration

    public init(name: String, apps: [App], connections: [Connection],
                externalConnections: [ExternalConnection], order: [Int], policy: PolicyConfiguration = .init(),
                transport: TransportConfiguration = .init(), exposure: PortExposure = .all,
                isolation: IsolationConfiguration = .init(), admission: ProgramAdmission? = nil,
                latency: LatencyConfiguration = .init()) {
        self.name = name
        self.apps = apps
        self.connections = connections
        self.externalConnections = externalConnections
        self.order = order
        self.policy = policy
        self.transport = transport
        self.exposure = exposure
        self.isolation = isolation
        self.admission = admission
        self.latency = latency
    }

    /// The same graph with other connections (for live connect and disconnect); the order is
    /// recomputed by the caller's validation, so this is only for changes that keep it valid.
    public func with(connections: [Connection], order: [Int]) -> Graph {
        Graph(name: name, apps: apps, connections: connections, externalConnections: externalConnections,
              order: order, policy: policy, transport: transport, exposure: exposure, isolation: isolation,
              admission: admission, latency: latency)
    }

    /// The index of the app called `id`.
    public func appIndex(_ id: String) -> Int? {
        apps.firstIndex { $0.id == id }
    }
}

/// The role an app plays, in Inter-App Audio's terms.
public enum AppRole: String, Sendable, Hashable, CaseIterable {
    /// Hosts node apps: pulls audio from generators, instruments and effects.
    case host
    /// An Inter-App Audio node: a generator, instrument, effect or music effect.
    case node
    /// A plain app that plays or records.
    case app
}

/// One member of a graph: its node type, configuration and initial parameter values.
public struct App: Sendable {
    public let id: String
    public let role: AppRole
    public let type: NodeType
    public let configuration: NodeConfiguration
    /// The value of each of `type.parameters`, in that order, already range-checked: the graph
    /// file's, then what `set` made it (``Graph/settingParameter(_:ofApp:to:)``).
    public internal(set) var parameters: [Float]
    public let layout: NodeLayout
    /// The app's audio session, or nil for a plain processing node (a gain, a mixer) that the
    /// policy does not manage and that is always audible.
    public let session: AppSessionSetup?
    /// The Inter-App Audio component a node app publishes: the graph's `component`, else the
    /// node type's own.
    public let component: ComponentDescription?
    /// Set for a program app: the outside process whose sound the app carries.
    public let program: ProgramBinding?
    /// Set for a link end, which is also a program app: its program is the bridge the engine runs.
    public let link: LinkEnd?
    /// Where the node runs, as the graph chose (the app's `isolation`, else the graph's
    /// `isolation.default`); nil when the graph leaves it to the engine.
    public let isolation: IsolationChoice?

    public init(id: String, role: AppRole, type: NodeType, configuration: NodeConfiguration,
                parameters: [Float], layout: NodeLayout, session: AppSessionSetup? = nil,
                component: ComponentDescription? = nil, program: ProgramBinding? = nil, link: LinkEnd? = nil,
                isolation: IsolationChoice? = nil) {
        self.id = id
        self.role = role
        self.type = type
        self.configuration = configuration
        self.parameters = parameters
        self.layout = layout
        self.session = session
        self.component = component ?? type.component
        self.program = program
        self.link = link
        self.isolation = isolation
    }
}

/// What a graph asks of latency (`"latency": {"compensate": false}`).
public struct LatencyConfiguration: Sendable, Hashable {
    /// Delay the earlier paths where paths of different latency meet, so they arrive together
    /// (plugin delay compensation); on unless the graph turns it off.
    public var compensate: Bool

    public init(compensate: Bool = true) {
        self.compensate = compensate
    }
}

/// The host transport a graph asks for (`"transport": {"tempo": 120, "beatsPerBar": 4}`).
public struct TransportConfiguration: Sendable, Hashable {
    /// Beats per minute.
    public var tempo: Double
    public var beatsPerBar: Double
    /// The transport rolls from the start (offline; live, JACK's transport decides).
    public var playing: Bool
    /// Live: the engine becomes JACK's timebase master, so every JACK client sees this tempo.
    public var timebaseMaster: Bool

    public init(tempo: Double = 120, beatsPerBar: Double = 4, playing: Bool = false, timebaseMaster: Bool = false) {
        self.tempo = tempo
        self.beatsPerBar = beatsPerBar
        self.playing = playing
        self.timebaseMaster = timebaseMaster
    }
}

/// An app's port: `port` indexes the app layout's inputs or outputs, depending on where it is used.
public struct PortAddress: Sendable, Hashable {
    public let app: Int
    public let port: Int

    public init(app: Int, port: Int) {
        self.app = app
        self.port = port
    }
}

/// An internal connection from an app's output to an app's input, scaled by `gain`.
public struct Connection: Sendable, Hashable {
    public let from: PortAddress
    public let to: PortAddress
    public let gain: Float

    public init(from: PortAddress, to: PortAddress, gain: Float = 1) {
        self.from = from
        self.to = to
        self.gain = gain
    }
}

/// Something outside the engine that an app port connects to.
public enum ExternalEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// A full JACK port name such as `system:playback_1`.
    case port(String)
    /// The physical playback ports (`@playback`), in JACK's order.
    case physicalPlayback
    /// The physical capture ports (`@capture`), in JACK's order.
    case physicalCapture
    /// The physical MIDI inputs (`@midi-capture`: keyboards, controllers), in JACK's order.
    case physicalMIDICapture

    /// As a graph file writes it.
    public var description: String {
        switch self {
        case .port(let name): return name
        case .physicalPlayback: return "@playback"
        case .physicalCapture: return "@capture"
        case .physicalMIDICapture: return "@midi-capture"
        }
    }
}

/// A connection between app ports and an outside endpoint.
///
/// With several app ports and a set of outside ports (`@playback`), the ports pair in order; a
/// single app port connects to every outside port (mono to both speakers), as users expect.
public struct ExternalConnection: Sendable, Hashable {
    public enum Direction: Sendable, Hashable {
        /// App outputs feed the outside endpoint.
        case toExternal
        /// The outside endpoint feeds app inputs.
        case fromExternal
    }

    /// The app ports (outputs for `.toExternal`, inputs for `.fromExternal`, MIDI inputs when
    /// `isMIDI`), in pairing order.
    public let ports: [PortAddress]
    public let direction: Direction
    public let endpoint: ExternalEndpoint
    /// A MIDI connection into an app's MIDI input (`ports` index `layout.midiInputs`).
    public let isMIDI: Bool

    public init(ports: [PortAddress], direction: Direction, endpoint: ExternalEndpoint, isMIDI: Bool = false) {
        self.ports = ports
        self.direction = direction
        self.endpoint = endpoint
        self.isMIDI = isMIDI
    }
}
