#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What other threads hand the I/O thread: replies from the control queue and lines to publish.
///
/// One ordered list for both, so a stream's initial reply always precedes the lines the engine
/// publishes after its handler returned.
final class ServerMailbox: Sendable {
    enum Item: Sendable {
        case reply(connection: UInt64, id: ControlJSON, reply: ControlReply, closeAfter: Bool)
        case publish(topic: String, line: [UInt8])
    }

    private struct State {
        var items: [Item] = []
        var stopping = false
    }

    private let state = Mutex(State())
    /// The write end of the pipe the I/O thread polls; one byte per empty→non-empty transition.
    private let wakeFD: Int32
    /// Subscribers per topic, kept by the I/O thread so the engine can skip work nobody watches.
    let subscriberCounts = Mutex<[String: Int]>([:])

    init(wakeFD: Int32) { self.wakeFD = wakeFD }

    /// Changes a topic's count. A stream is counted from the moment its handler returns, not when
    /// the I/O thread gets to it, so the engine never skips a line published right after subscribing.
    func adjustSubscribers(_ topic: String, by delta: Int) {
        subscriberCounts.withLock { counts in
            let count = counts[topic, default: 0] + delta
            counts[topic] = count > 0 ? count : nil
        }
    }

    func post(_ item: Item) {
        let wasEmpty = state.withLock { state in
            defer { state.items.append(item) }
            return state.items.isEmpty && !state.stopping
        }
        if wasEmpty { wake() }
    }

    func requestStop() {
        state.withLock { $0.stopping = true }
        wake()
    }

    /// Takes everything posted so far.
    func take() -> (items: [Item], stopping: Bool) {
        state.withLock { state in
            defer { state.items = [] }
            return (state.items, state.stopping)
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe already guarantees a wake-up, so EAGAIN is fine to ignore.
        _ = write(wakeFD, &byte, 1)
    }
}
