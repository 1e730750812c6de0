import AudioGraph

/// What every component that acts on the engine reads of it (``EngineCore`` is the one host):
/// the running graph, the server, the session clock, the sessions and where events go, all on
/// the control queue. Each component's own host protocol adds what only it needs
/// (``ProgramHost``, ``WatchHost``, ``KeepingHost``, ``ReloadHost``, ``ReportHost``).
protocol EngineHost: AnyObject {
    var graph: Graph { get }
    var backend: any LiveBackend { get }
    var now: Double { get }
    var sessions: AudioSessionController { get }
    var publisher: EventPublisher { get }
    func checkOnQueue()
}
