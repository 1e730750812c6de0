/// What the audio thread measured of one app since the control side last asked
/// (``RenderPlan/takeMeter(app:)``): `iaa top`'s busy share and peak, the `meters` stream's levels.
public struct StepMeter: Sendable, Equatable {
    /// Its processing time in the last metered cycle.
    public var seconds: Double
    /// Its outputs' largest absolute sample.
    public var peak: Float
    /// Its outputs' mean square, summed over `frames`.
    public var energy: Float
    public var frames: Int

    /// The root mean square over those frames (0 when none were metered).
    public var rms: Float { frames > 0 ? (energy / Float(frames)).squareRoot() : 0 }

    /// Two takes as one: the second's time, the larger peak, the energies summed.
    public func merged(with later: StepMeter) -> StepMeter {
        StepMeter(seconds: later.seconds, peak: max(peak, later.peak), energy: energy + later.energy, frames: frames + later.frames)
    }
}
