#if canImport(Glibc)
import Glibc
#endif

/// Lines in, replies and published lines out.
extension IOLoop {
    /// Whether the connection may take on another line now.
    private func canProcess(_ connection: ControlConnection) -> Bool {
        connections[connection.id] != nil && !connection.readingStopped && !connection.closeWhenFlushed
            && connection.inFlight < limits.maximumInFlight
            && connection.pendingOutput < limits.outputHighWater
    }

    /// Handles the complete lines in the connection's input, as many as its limits allow.
    func processLines(_ connection: ControlConnection) {
        var start = 0
        var exhausted = false
        while canProcess(connection) {
            guard let line = connection.nextLine(from: &start) else { exhausted = true; break }
            handle(line, from: connection)
        }
        guard connections[connection.id] != nil else { return }
        connection.compact(consumed: start)
        // What is left is part of a line only when no whole line waits (held back by the limits).
        if !exhausted || connection.input.isEmpty {
            connection.partialSince = nil
        } else if connection.partialSince == nil {
            connection.partialSince = .now
        }
        guard exhausted else { return }
        if connection.input.count > limits.maximumRequestBytes {
            // Nothing of the rest of this stream can be framed reliably, so the reply is the last.
            connection.input = []
            connection.readingStopped = true
            transportError(connection, ControlError(.requestTooLarge,
                message: "request line longer than \(limits.maximumRequestBytes) bytes; closing the connection"),
                closeAfter: true)
        } else if connection.sawEndOfInput, !connection.input.isEmpty {
            // A last line without its newline (`printf '{…}' | nc -U`) is still a line.
            let line = connection.input[...]
            connection.input = []
            connection.scanned = 0
            handle(line, from: connection)
        }
    }

    private func handle(_ line: ArraySlice<UInt8>, from connection: ControlConnection) {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        connection.sentRequest = true
        switch RequestDecoder.decode(line) {
        case .request(let id, let method, let params):
            let request = ControlRequest(id: id, method: method, params: params, peer: connection.peer,
                                         connection: connection.id)
            connection.inFlight += 1
            let handler = handler, mailbox = mailbox
            queue.async {
                let reply = handler(request)
                if case .stream(let topic, _) = reply { mailbox.adjustSubscribers(topic, by: 1) }
                mailbox.post(.reply(connection: request.connection, id: id, reply: reply, closeAfter: false))
            }
        case .failure(let id, let error):
            transportError(connection, error, id: id, closeAfter: false)
        }
    }

    /// Answers without the handler, yet behind the replies still owed, so a client's replies keep
    /// its order: directly when nothing is in flight, else through the control queue after them.
    private func transportError(_ connection: ControlConnection, _ error: ControlError, id: ControlJSON = .null,
                                closeAfter: Bool) {
        if connection.inFlight == 0 {
            write(.error(error), id: id, to: connection, closeAfter: closeAfter)
            return
        }
        connection.inFlight += 1
        let mailbox = mailbox, connectionID = connection.id
        queue.async {
            mailbox.post(.reply(connection: connectionID, id: id, reply: .error(error), closeAfter: closeAfter))
        }
    }

    /// Applies one item from the mailbox.
    func deliver(_ item: ServerMailbox.Item) {
        switch item {
        case .reply(let connectionID, let id, let reply, let closeAfter):
            guard let connection = connections[connectionID] else {
                if case .stream(let topic, _) = reply { mailbox.adjustSubscribers(topic, by: -1) }
                return
            }
            connection.inFlight -= 1
            write(reply, id: id, to: connection, closeAfter: closeAfter)
            processLines(connection)
            settle(connection)
        case .publish(let topic, let line):
            guard let members = subscribers[topic] else { return }
            for connectionID in members {
                guard let connection = connections[connectionID] else { continue }
                if enqueue(line, to: connection, what: "'\(topic)' lines") { settle(connection) }
            }
        }
    }

    private func write(_ reply: ControlReply, id: ControlJSON, to connection: ControlConnection, closeAfter: Bool) {
        let line: [UInt8]
        switch reply {
        case .result(let value): line = RequestDecoder.replyLine(id: id, .result(value))
        case .error(let error): line = RequestDecoder.replyLine(id: id, .error(error))
        case .stream(let topic, let initial):
            subscribe(connection, to: topic)
            line = RequestDecoder.replyLine(id: id, .result(initial ?? .object([("stream", .string(topic))])))
        }
        guard enqueue(line, to: connection, what: "replies") else { return }
        if closeAfter {
            connection.closeWhenFlushed = true
            connection.deadline = .now + limits.closeLinger
        }
    }

    /// Queues bytes for the client, dropping the client rather than buffering past the limit.
    /// One line larger than the limit still goes out to a client that has read everything before it.
    /// Returns false when the client was dropped.
    private func enqueue(_ line: [UInt8], to connection: ControlConnection, what: String) -> Bool {
        if connection.peerGone { return true }
        let pending = connection.pendingOutput
        if pending > 0, pending + line.count > limits.maximumOutputBytes {
            drop(connection, reason: "client pid \(connection.peer.pid) stopped reading: more than \(limits.maximumOutputBytes) bytes of \(what) waiting; disconnected")
            return false
        }
        // Only a client behind already counts against the budget, so the sum is taken rarely.
        if pending + line.count > limits.outputHighWater {
            let lagging = connections.values.reduce(0) { total, other in
                total + (other.pendingOutput > limits.outputHighWater ? other.pendingOutput : 0)
            }
            if lagging + line.count > limits.maximumLaggingOutputBytes {
                drop(connection, reason: "client pid \(connection.peer.pid) stopped reading: the \(limits.maximumLaggingOutputBytes >> 20) MiB the engine holds for every client that fell behind is spent; disconnected")
                return false
            }
        }
        connection.append(line)
        if !connection.flush() { connection.markGone() }
        return true
    }

    /// Adds the connection to the topic; the control queue has already counted it.
    private func subscribe(_ connection: ControlConnection, to topic: String) {
        guard connection.topics.insert(topic).inserted else {
            mailbox.adjustSubscribers(topic, by: -1)
            return
        }
        subscribers[topic, default: []].insert(connection.id)
    }

    /// Closes the connection if it has nothing left to do.
    func settle(_ connection: ControlConnection) {
        guard connections[connection.id] != nil else { return }
        if connection.peerGone {
            // Requests it sent before vanishing still run (a `set` piped through `nc` should take
            // effect); the connection goes once their replies are in, unread.
            if connection.inFlight == 0 { drop(connection, reason: nil) }
        } else if connection.closeWhenFlushed {
            if connection.pendingOutput == 0 { drop(connection, reason: nil) }
        } else if connection.sawEndOfInput, connection.inFlight == 0, connection.pendingOutput == 0,
                  connection.input.isEmpty, connection.topics.isEmpty {
            drop(connection, reason: nil)
        }
    }

    /// Forgets the connection and closes its socket.
    func drop(_ connection: ControlConnection, reason: String?) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        for topic in connection.topics {
            subscribers[topic]?.remove(connection.id)
            if subscribers[topic]?.isEmpty == true { subscribers[topic] = nil }
            mailbox.adjustSubscribers(topic, by: -1)
        }
        connection.close()
        if let reason { diagnostics?("control socket: \(reason)") }
        if let disconnected {
            let id = connection.id
            queue.async { disconnected(id) }
        }
    }

    /// Closes connections whose lingering time is up (a refused client that never reads its error).
    func closeExpired() {
        let now = ContinuousClock.now
        for connection in connections.values {
            if let deadline = connection.deadline, deadline <= now { drop(connection, reason: nil) }
            else if let since = connection.partialSince, since + limits.lineTimeout <= now, wantsInput(connection) {
                // Only while the engine was reading it: a line held back by the limits is not late.
                drop(connection, reason: "client pid \(connection.peer.pid) took more than \(limits.lineTimeout) to send one request line; disconnected")
            }
        }
    }
}
