/// One line of the `top` stream (PROTOCOL.md, `top`): the engine writes it from this type and
/// `iaa top` reads it back into this type, so neither spells a member's name by hand.
public struct TopUpdate: Sendable, Equatable {
    /// What the policy and the engine make of one app now.
    public enum State: String, Sendable, CaseIterable {
        case audible, ducked, interrupted, suspended, silent, inactive
        /// A program app whose program is not there.
        case notRunning = "not running"
        /// An isolated app whose child is not rendering.
        case isolatedStarting = "isolated starting"
        case isolatedRestarting = "isolated restarting"
        case isolatedOff = "isolated off"
        /// An app without a session.
        case running
    }

    public struct App: Sendable, Equatable {
        public var id: String
        /// Its share of the period.
        public var busy: Double
        /// Its peak in dBFS, nil for exact silence.
        public var peak: Double?
        /// The policy's gain target.
        public var gain: Double
        public var state: State

        public init(id: String, busy: Double, peak: Double?, gain: Double, state: State) {
            self.id = id
            self.busy = busy
            self.peak = peak
            self.gain = gain
            self.state = state
        }
    }

    /// Seconds on the engine's clock.
    public var time: Double
    /// The period, in seconds.
    public var period: Double
    /// The engine's share of the last period, and its largest since the last line.
    public var busy: Double
    public var busyMax: Double
    public var dspLoad: Double
    public var xruns: Int64
    public var ourXruns: Int64
    public var apps: [App]
    /// Whether the cycles are split across threads now, and each worker thread's share of the
    /// period in the last cycle it joined (docs/parallel.md).
    public var split: Bool
    public var workers: [Double]

    public init(time: Double, period: Double, busy: Double, busyMax: Double, dspLoad: Double, xruns: Int64, ourXruns: Int64,
                apps: [App], split: Bool = false, workers: [Double] = []) {
        self.time = time
        self.period = period
        self.busy = busy
        self.busyMax = busyMax
        self.dspLoad = dspLoad
        self.xruns = xruns
        self.ourXruns = ourXruns
        self.apps = apps
        self.split = split
        self.workers = workers
    }

    /// The line as the protocol carries it. A silent app's `peak` is null: JSON has no -∞, and a
    /// number standing for it (-200, as `meters` writes for the dashboard) reads as a level.
    public var json: ControlJSON {
        .object([
            ("t", .number(time)), ("period", .number(period)), ("busy", .number(busy)), ("busyMax", .number(busyMax)),
            ("dspLoad", .number(dspLoad)), ("xruns", .number(Double(xruns))), ("ourXruns", .number(Double(ourXruns))),
            ("apps", .array(apps.map { app in
                .object([("id", .string(app.id)), ("busy", .number(app.busy)), ("peak", app.peak.map(ControlJSON.number) ?? .null),
                         ("gain", .number(app.gain)), ("state", .string(app.state.rawValue))])
            })),
            ("split", .bool(split)), ("workers", .array(workers.map { .number($0) })),
        ])
    }

    /// The peak and RMS `meters` writes for exact silence; `top` writes null.
    public static let silence = -200.0

    /// Reads a line; nil when it is not a `top` line.
    public init?(json: ControlJSON) {
        guard let time = json["t"]?.doubleValue, let period = json["period"]?.doubleValue,
              let elements = json["apps"]?.arrayValue else { return nil }
        var apps: [App] = []
        for element in elements {
            guard let id = element["id"]?.stringValue, let state = element["state"]?.stringValue.flatMap(State.init) else { return nil }
            let peak = element["peak"]?.doubleValue.flatMap { $0.isFinite && $0 > Self.silence ? $0 : nil }
            apps.append(App(id: id, busy: element["busy"]?.doubleValue ?? 0, peak: peak, gain: element["gain"]?.doubleValue ?? 1,
                            state: state))
        }
        self.init(time: time, period: period, busy: json["busy"]?.doubleValue ?? 0, busyMax: json["busyMax"]?.doubleValue ?? 0,
                  dspLoad: json["dspLoad"]?.doubleValue ?? 0, xruns: Int64(json["xruns"]?.doubleValue ?? 0),
                  ourXruns: Int64(json["ourXruns"]?.doubleValue ?? 0), apps: apps, split: json["split"]?.boolValue ?? false,
                  workers: json["workers"]?.arrayValue?.compactMap(\.doubleValue) ?? [])
    }
}
