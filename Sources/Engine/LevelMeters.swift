#if canImport(Glibc)
import Glibc
#endif
import RenderCore
import ControlSocket

/// Each app's level, taken from the running plan by the control side: 20 times a second while
/// someone follows the `meters` stream (the dashboard), once a second for `top` otherwise. Both
/// read the same counters, which a take empties, so what `meters` took is kept here for `top`'s
/// next line. Control queue only.
struct LevelMeters {
    /// What was taken for each app since the last `top` line.
    private var sinceTop: [String: StepMeter] = [:]

    /// One `meters` line's levels: each app's peak and RMS since the previous take, in dBFS;
    /// kept for `top`'s next line while `top` is followed.
    mutating func take(_ plan: RenderPlan?, apps: [String], keepingForTop: Bool) -> [MetersUpdate.Level] {
        if !keepingForTop { sinceTop.removeAll(keepingCapacity: true) }
        return apps.map { app in
            let meter = plan?.takeMeter(app: app)
            if let meter, keepingForTop { sinceTop[app] = sinceTop[app].map { $0.merged(with: meter) } ?? meter }
            return MetersUpdate.Level(id: app, peak: Self.decibels(meter?.peak ?? 0), rms: Self.decibels(meter?.rms ?? 0))
        }
    }

    /// What `top` reports of `app`: everything taken since its last line, this take included.
    mutating func takeForTop(_ plan: RenderPlan?, app: String) -> StepMeter? {
        let latest = plan?.takeMeter(app: app)
        defer { sinceTop[app] = nil }
        guard let earlier = sinceTop[app] else { return latest }
        return latest.map { earlier.merged(with: $0) } ?? earlier
    }

    /// dBFS, nil for exact silence.
    static func decibels(_ linear: Float) -> Double? {
        linear > 0 ? 20 * log10(Double(linear)) : nil
    }
}
