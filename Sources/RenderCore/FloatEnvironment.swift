import CFloatEnvironment

/// Denormals flushed to zero on the rendering thread: a decaying filter or reverb tail in the
/// denormal range costs up to ~100× per operation, enough to miss a deadline.
public enum FloatEnvironment {
    /// Flushes denormals on this thread; returns the previous state for `restore`.
    /// - Realtime: safe.
    @discardableResult
    public static func flushDenormals() -> UInt64 { iaa_flush_denormals() }

    /// Puts back the state `flushDenormals` returned (offline rendering borrows its thread).
    /// - Realtime: safe.
    public static func restore(_ previous: UInt64) { iaa_restore_float_environment(previous) }
}
