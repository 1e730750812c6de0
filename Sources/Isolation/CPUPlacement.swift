import CIsolation
import Synchronization

/// Keeps the engine's audio thread and every isolated child on one CPU.
///
/// Handing a cycle to a child and taking it back is two wake-ups. When the child sleeps on
/// another CPU, each is an inter-processor interrupt and an idle exit there, which on a virtual
/// machine costs more than the plugin's work: ~31–37 µs of CPU per isolated node per cycle,
/// measured (docs/isolation.md). On one CPU each wake-up is a local switch. The child runs at a
/// lower real-time priority than the audio thread, so the thread still preempts a child that
/// hangs on their shared CPU as soon as its bounded wait ends.
///
/// The audio thread is pinned to the CPU it was seen on, once (again after a JACK restart,
/// which brings a new thread); children are pinned to the same CPU by their supervisors. Both
/// happen on supervisor threads, never on the audio thread, which only records where it runs.
public final class CPUPlacement: Sendable {
    private struct AudioThread {
        var handle: UInt
        var pinned: Int32?
    }

    private let thread = Mutex<AudioThread?>(nil)
    /// Shared by every isolated node's bounded wait in a cycle (see `iaa_deadline_anchor`);
    /// touched only by the audio thread once made.
    nonisolated(unsafe) let anchor: UnsafeMutablePointer<iaa_deadline_anchor>

    public init() {
        anchor = .allocate(capacity: 1)
        anchor.initialize(to: iaa_deadline_anchor_make())
    }

    deinit {
        iaa_deadline_anchor_close(anchor)
        anchor.deallocate()
    }

    /// The audio thread to pin (`pthread_t`), after each activation of a JACK client.
    public func adopt(audioThread handle: UInt) {
        thread.withLock { $0 = AudioThread(handle: handle, pinned: nil) }
    }

    /// The CPU the audio thread is pinned to, pinning it to `cpu` (where it was just seen) first
    /// if it is not yet; nil when no thread is known or the kernel refused (a cpuset, say): then
    /// nobody is pinned and hand-overs stay cross-CPU.
    func audioThreadCPU(seenOn cpu: Int32) -> Int32? {
        thread.withLock { thread in
            guard var current = thread else { return nil }
            if let pinned = current.pinned { return pinned }
            guard iaa_pin_thread(current.handle, cpu) == 0 else { return nil }
            current.pinned = cpu
            thread = current
            return cpu
        }
    }
}
