/// Activation and deactivation (SESSION-POLICY.md, Activation, rules 1 to 8) and the
/// interruptions they cause.
extension SessionPolicy {
    /// Checks rule 8, then the background rules (3, then 2), then priority (4); then activates,
    /// which starts the app's I/O and interrupts whom rule 1 (or a call) says.
    mutating func activate(_ i: Int) -> SessionError? {
        let record = apps[i]
        if record.active { return nil }
        let missing = Entitlement.allCases.first {
            record.setup.requestedEntitlements.contains($0) && !record.setup.entitlements.contains($0)
        }
        if let missing {
            return SessionError(.missingEntitlement, app: record.id,
                                "app \"\(record.id)\" needs the \"\(missing.rawValue)\" entitlement to activate its session; "
                                    + "grant it in the app's `entitlements`")
        }
        if let refusal = admissionError(i, mixable: record.isMixable, startsAudio: true) { return refusal }
        let wasSuspended = record.suspended
        apps[i].active = true
        // Activation starts the app's I/O in every direction its category has (built-in nodes
        // run as soon as they are active); a recording rule 3 would refuse is not started.
        apps[i].playing = true
        apps[i].recording = record.category.hasInput
            && (record.setup.foreground || !record.isMixable || record.setup.isInterAppAudio)
        apps[i].interruptedBy = nil
        apps[i].suspended = false
        if wasSuspended { emit(i, .resumed) }
        interruptOthers(by: i)
        return nil
    }

    /// Whether the app may hold a session of the given mixability now: the background rules
    /// (3 when it starts audio, then 2 with the Now Playing exception) and priority (rule 4).
    func admissionError(_ i: Int, mixable: Bool, startsAudio: Bool) -> SessionError? {
        let record = apps[i]
        let id = record.id
        if !record.setup.foreground && startsAudio {
            if !record.setup.backgroundModes.contains(.audio) {
                return SessionError(.cannotStartPlaying, app: id,
                                    "app \"\(id)\" is in the background without the `audio` background mode; "
                                        + "add \"audio\" to its backgroundModes or bring it to the foreground")
            }
            if !record.category.playsInBackground {
                return SessionError(.cannotStartPlaying, app: id,
                                    "app \"\(id)\" is in the background and category \(record.category.rawValue) "
                                        + "cannot play there (categories that can: playback, record, playAndRecord, multiRoute)")
            }
        }
        guard !mixable else { return nil }
        let rivals = apps.indices.filter { $0 != i && apps[$0].active && !apps[$0].isMixable }
        // A call comes in from the background and must still ring (ours): rule 2 does not hold it.
        if !record.setup.foreground && !record.isCall && !rivals.isEmpty {
            let names = rivals.map { "\"\(apps[$0].id)\"" }.joined(separator: ", ")
            if let front = rivals.first(where: { apps[$0].setup.foreground }) {
                return SessionError(.cannotInterruptOthers, app: id,
                                    "app \"\(id)\" is in the background and would interrupt the foreground app "
                                        + "\"\(apps[front].id)\", which always has priority; use mixWithOthers or wait")
            }
            if nowPlayingApp != id {
                return SessionError(.cannotInterruptOthers, app: id,
                                    "app \"\(id)\" is in the background and may not interrupt the non-mixable session of "
                                        + "\(names); only the Now Playing app may, or use mixWithOthers")
            }
        }
        if let call = apps.indices.first(where: { $0 != i && apps[$0].active && apps[$0].isCall }) {
            return SessionError(.insufficientPriority, app: id,
                                "app \"\(apps[call].id)\" holds priority-audio and its session (a call) is active; "
                                    + "app \"\(id)\" may only activate a mixable session until it ends")
        }
        if systemInterruption {
            return SessionError(.insufficientPriority, app: id,
                                "a system interruption is under way; app \"\(id)\" may only activate a mixable session "
                                    + "until it ends")
        }
        return nil
    }

    /// Rule 1, calls and `interruptSpokenAudioAndMixWithOthers`: whom this active session interrupts.
    mutating func interruptOthers(by i: Int) {
        let record = apps[i]
        let spokenOnly = record.setup.options.contains(.interruptSpokenAudioAndMixWithOthers)
        for j in apps.indices where j != i && apps[j].active {
            let other = apps[j]
            if record.isCall || (!record.isMixable && !other.isMixable)
                || (spokenOnly && other.effectiveMode == .spokenAudio) {
                interrupt(j, by: .app(record.id), reason: .default)
            }
        }
    }

    /// Ends the session without the app asking: its I/O stops and it waits for `ended`.
    mutating func interrupt(_ j: Int, by interrupter: Interrupter, reason: InterruptionReason) {
        apps[j].active = false
        apps[j].playing = false
        apps[j].recording = false
        apps[j].interruptedBy = interrupter
        emit(j, .interruption(type: .began, reason: reason, shouldResume: false,
                              wasSuspended: reason == .appWasSuspended))
    }

    /// Rules 5 and 6: deactivation tells the apps this one interrupted; with I/O still running it
    /// stops it and still deactivates, returning `isBusy`.
    mutating func deactivate(_ i: Int, _ options: Set<DeactivationOption>) -> SessionError? {
        let record = apps[i]
        guard record.active else { return nil }
        apps[i].active = false
        apps[i].playing = false
        apps[i].recording = false
        // A call always lets the others resume when it hangs up (ours, as for system interruptions).
        let shouldResume = options.contains(.notifyOthersOnDeactivation) || record.isCall
        endInterruptions(by: .app(record.id), shouldResume: shouldResume, reason: .default)
        guard record.playing else { return nil }
        return SessionError(.isBusy, app: record.id,
                            "app \"\(record.id)\" deactivated its session while its audio was running; the audio was "
                                + "stopped and the session deactivated; stop the audio first (stopAudio)")
    }

    /// Sends `ended` to everyone waiting on `interrupter`; with `shouldResume`, those that resume
    /// by themselves reactivate when the rules allow (and silently stay inactive otherwise).
    mutating func endInterruptions(by interrupter: Interrupter, shouldResume: Bool, reason: InterruptionReason) {
        let waiting = apps.indices.filter { apps[$0].interruptedBy == interrupter }
        for j in waiting {
            apps[j].interruptedBy = nil
            emit(j, .interruption(type: .ended, reason: reason, shouldResume: shouldResume, wasSuspended: false))
        }
        guard shouldResume else { return }
        for j in waiting where apps[j].setup.resumesAfterInterruption {
            _ = activate(j)
        }
    }

    /// A system interruption interrupts every active session, mixable ones too; its end always
    /// carries `shouldResume` (ours).
    mutating func systemInterrupt(_ type: InterruptionType, _ reason: InterruptionReason) {
        switch type {
        case .began:
            systemInterruption = true
            for j in apps.indices where apps[j].active { interrupt(j, by: .system, reason: reason) }
        case .ended:
            guard systemInterruption else { return }
            systemInterruption = false
            endInterruptions(by: .system, shouldResume: true, reason: reason)
        }
    }
}
