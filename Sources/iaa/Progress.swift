import Engine

/// Render progress on stderr: a bar redrawn in place on a terminal, a line per 10 % otherwise,
/// each with the time left at the pace so far.
final class Progress {
    let seconds: Double
    let terminal: Bool
    private var lastShown = -1
    private let started = ContinuousClock.now

    init(seconds: Double, terminal: Bool) {
        self.seconds = seconds
        self.terminal = terminal
    }

    func update(_ fraction: Double) {
        let percent = Int(fraction * 100)
        if terminal {
            guard percent != lastShown else { return }
            let width = 30, filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            StandardError.writeInPlace("render [\(bar)] \(percent)% of \(seconds) s\(eta(fraction))")
        } else {
            let step = percent / 10 * 10
            guard step > lastShown else { return }
            StandardError.write("render: \(step)% (\(String(format2: fraction * seconds)) of \(seconds) s\(eta(fraction)))")
            lastShown = step
            return
        }
        lastShown = percent
    }

    /// ", ETA 2.35 s" once there is a pace to go by (after 1 %), else nothing.
    private func eta(_ fraction: Double) -> String {
        guard fraction >= 0.01, fraction < 1 else { return "" }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return ", ETA \(String(format2: seconds * (1 - fraction) / fraction))"
    }

    func finish() {
        if terminal && lastShown >= 0 { StandardError.writeInPlace("", newline: true) }
    }
}

extension String {
    /// Seconds with two decimals, without Foundation's formatters.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
    }
}
