#if canImport(Glibc)
import Glibc
#endif

/// Optional hooks that let a test count heap allocations and retains on the audio thread.
///
/// When `IAA_RT_PROBE=1` and a counting library is preloaded (it exports `rt_arm`, `rt_mallocs`,
/// `rt_retains`), the backends arm the counter around every cycle. Otherwise both hooks are nil
/// and cost one branch per cycle.
public struct RealtimeProbe: BitwiseCopyable {
    public typealias Arm = @convention(c) (Int32) -> Void
    public typealias Count = @convention(c) () -> Int

    let arm: Arm?
    let mallocs: Count?
    let retains: Count?

    /// No probe.
    public static var disabled: RealtimeProbe { RealtimeProbe(arm: nil, mallocs: nil, retains: nil) }

    /// Resolves the counter's symbols when `IAA_RT_PROBE` is set. Control side.
    public static func fromEnvironment() -> RealtimeProbe {
        guard let flag = getenv("IAA_RT_PROBE"), flag.pointee != 0, flag.pointee != UInt8(ascii: "0") else {
            return .disabled
        }
        let library = dlopen(nil, RTLD_NOW)
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        return RealtimeProbe(arm: symbol("rt_arm", as: Arm.self),
                             mallocs: symbol("rt_mallocs", as: Count.self),
                             retains: symbol("rt_retains", as: Count.self))
    }

    public var isEnabled: Bool { arm != nil }

    /// - Realtime: safe.
    @inline(__always) public func begin() { arm?(1) }
    /// - Realtime: safe.
    @inline(__always) public func end() { arm?(0) }

    /// The counts so far, or nil without a counter. Control side.
    public func counts() -> (mallocs: Int, retains: Int)? {
        guard let mallocs, let retains else { return nil }
        return (mallocs(), retains())
    }
}
