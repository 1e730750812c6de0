import Testing

/// Every suite that talks to the private JACK server tools/test starts, run one test at a time:
/// jack2 keeps port metadata in one database per user shared by all servers, and concurrent
/// writers there lose properties; engines started beside each other on one server hung it once.
/// (The soak, alone on a server of its own, runs beside it.)
@Suite("JACK integration", .serialized)
enum JackIntegration {}
