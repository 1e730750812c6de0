#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the one clock the audio thread reads for step and cycle times.
public enum MonotonicClock {
    /// - Realtime: safe (clock_gettime is a vDSO read on Linux, no system call).
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// CPU time the calling thread has used, in nanoseconds: what tells a slow cycle of ours
    /// from one where the system took the CPU away.
    /// - Realtime: safe (a system call that never blocks: 0.2 µs on bare metal, 0.8 µs measured on
    ///   a VM, which is why the JACK cycle reads it only at some cycle starts).
    @inline(__always)
    public static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
