import AudioGraph

extension Validator {
    /// Reports every unmet Inter-App Audio condition of `graph`'s connections, at the end of the
    /// connection (`/connections/N/from` or `/to`) that names the app at fault.
    ///
    /// A condition about one app (a host without the `audio` background mode) is the same for
    /// each of its connections, and one fix meets it: it is reported once, at the first.
    mutating func checkInterAppAudio(_ graph: Graph) {
        var reported: Set<InterAppAudioRules.Violation> = []
        for (index, connection) in graph.connections.enumerated() {
            for violation in InterAppAudioRules.check(connection, in: graph) where reported.insert(violation).inserted {
                let end = graph.apps[connection.from.app].id == violation.app ? "/from" : "/to"
                sink.error(violation.code, at: description.connections[connectionSources[index]].pointer + end, violation.message, hint: violation.hint)
            }
        }
    }
}
