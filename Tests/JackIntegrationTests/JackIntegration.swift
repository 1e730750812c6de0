import Testing

/// Every suite that talks to a JACK server, run one test at a time: jack2 keeps port metadata in
/// one database per user shared by all servers, and concurrent writers there lose properties.
@Suite("JACK integration", .serialized)
enum JackIntegration {}
