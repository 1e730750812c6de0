import CJack
import Synchronization

/// One registered JACK port and how many connections it has, at a stable address the audio thread
/// reads through the plan. The count comes from JACK's port-connect callback, so the audio thread
/// fetches a port's buffer only when something is connected (each fetch costs ~140 ns).
struct PortRecord: ~Copyable {
    let port: OpaquePointer
    let connections: Atomic<Int32>

    init(port: OpaquePointer) {
        self.port = port
        connections = Atomic(0)
    }
}
