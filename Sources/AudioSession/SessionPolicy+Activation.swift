/// Activation and deactivation (docs/session-policy.md, Activation, rules 1 to 8) and the
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
        if let refusal = admissionError(i, mixable: record.isMixable, startsAudio: true,
                                        records: record.category.hasInput) { return refusal }
        if let refusal = mutedMicrophoneError(i) { return refusal }
        let wasSuspended = record.suspended
        apps[i].active = true
        // Activation starts the app's I/O in every direction its category has (built-in nodes
        // run as soon as they are active); a recording rule 3 would refuse is not started.
        apps[i].playing = true
        apps[i].recording = record.category.hasInput
            && (record.setup.foreground || !record.isMixable || record.setup.isInterAppAudio)
        apps[i].interruptedBy = nil
        apps[i].mayResume = false
        apps[i].suspended = false
        if wasSuspended { emit(i, .resumed) }
        interruptOthers(by: i)
        return nil
    }

    /// Whether the app may hold a session of the given mixability now: the background rules
    /// (3 when it starts audio, then 2 with the Now Playing exception) and priority (rule 4).
    /// `records` says the session's category takes input: during a call even a mixable one is
    /// refused, because the call holds the microphone.
    func admissionError(_ i: Int, mixable: Bool, startsAudio: Bool, records: Bool = false) -> SessionError? {
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
        if !mixable, let refusal = backgroundInterruptionError(i) { return refusal }
        guard !mixable || records else { return nil }
        let what = mixable ? "a session that records (category \(record.category.rawValue))" : "a non-mixable session"
        if let call = apps.indices.first(where: { $0 != i && apps[$0].active && apps[$0].isCall }) {
            return SessionError(.insufficientPriority, app: id,
                                "app \"\(apps[call].id)\" holds priority-audio and its session (a call) is active; "
                                    + "app \"\(id)\" may not activate \(what) until it ends (a playback session that "
                                    + "mixes may)")
        }
        if systemInterruption {
            return SessionError(.insufficientPriority, app: id,
                                "a system interruption is under way; app \"\(id)\" may not activate \(what) until it "
                                    + "ends (a playback session that mixes may)")
        }
        return nil
    }

    /// Rule 2: a background app may not interrupt another app's non-mixable session, unless it
    /// is the Now Playing app (and never the foreground app's); a call still rings (ours).
    private func backgroundInterruptionError(_ i: Int) -> SessionError? {
        let record = apps[i]
        let id = record.id
        let rivals = apps.indices.filter { $0 != i && apps[$0].active && !apps[$0].isMixable }
        guard !record.setup.foreground && !record.isCall && !rivals.isEmpty else { return nil }
        if let front = rivals.first(where: { apps[$0].setup.foreground }) {
            return SessionError(.cannotInterruptOthers, app: id,
                                "app \"\(id)\" is in the background and would interrupt the foreground app "
                                    + "\"\(apps[front].id)\", which always has priority; use mixWithOthers or wait")
        }
        guard nowPlayingApp != id else { return nil }
        let names = rivals.map { "\"\(apps[$0].id)\"" }.joined(separator: ", ")
        return SessionError(.cannotInterruptOthers, app: id,
                            "app \"\(id)\" is in the background and may not interrupt the non-mixable session of "
                                + "\(names); only the Now Playing app may, or use mixWithOthers")
    }

    /// Apple: "Attempting to start audio input after the system mutes the microphone results in an
    /// error", unless the session overrides the muted-microphone interruption.
    func mutedMicrophoneError(_ i: Int) -> SessionError? {
        let record = apps[i]
        guard device.microphoneMuted, record.category.hasInput,
              !record.setup.options.contains(.overrideMutedMicrophoneInterruption) else { return nil }
        return SessionError(.cannotStartRecording, app: record.id,
                            "app \"\(record.id)\" cannot start audio input while the built-in microphone is muted "
                                + "(category \(record.category.rawValue)); wait for the mute to end or set "
                                + "overrideMutedMicrophoneInterruption")
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
        apps[j].mayResume = true
        emit(j, .interruption(type: .began, reason: reason, shouldResume: false,
                              wasSuspended: reason == .appWasSuspended))
    }

    /// Rules 5 and 6: deactivation tells the apps this one interrupted (that they may resume only
    /// with `notifyOthersOnDeactivation`); with I/O still running it stops it and still
    /// deactivates, returning `isBusy`. An interrupted app that deactivates gives up its resumption.
    mutating func deactivate(_ i: Int, _ options: Set<DeactivationOption>) -> SessionError? {
        let record = apps[i]
        guard record.active else {
            apps[i].mayResume = false
            return nil
        }
        apps[i].active = false
        apps[i].playing = false
        apps[i].recording = false
        let shouldResume = options.contains(.notifyOthersOnDeactivation)
        endInterruptions(by: .app(record.id), shouldResume: shouldResume, reason: .default)
        guard record.playing else { return nil }
        return SessionError(.isBusy, app: record.id,
                            "app \"\(record.id)\" deactivated its session while its audio was running; the audio was "
                                + "stopped and the session deactivated; stop the audio first (stopAudio)")
    }

    /// Sends `ended` to everyone waiting on `interrupter`. `shouldResume` goes only to the apps
    /// that may still resume (interrupted while active, not stopped or deactivated since); of
    /// those, the ones that resume by themselves reactivate when the rules allow (and silently stay
    /// inactive otherwise).
    mutating func endInterruptions(by interrupter: Interrupter, shouldResume: Bool, reason: InterruptionReason) {
        let waiting = apps.indices.filter { apps[$0].interruptedBy == interrupter }
        var resuming: [Int] = []
        for j in waiting {
            let resume = shouldResume && apps[j].mayResume
            apps[j].interruptedBy = nil
            apps[j].mayResume = false
            if resume { resuming.append(j) }
            emit(j, .interruption(type: .ended, reason: reason, shouldResume: resume, wasSuspended: false))
        }
        for j in resuming where apps[j].setup.resumesAfterInterruption {
            _ = activate(j)
        }
    }

    /// A system interruption interrupts every active session, mixable ones too; its end carries
    /// `shouldResume` (ours) to the apps that may resume. A muted microphone is not a call: it
    /// interrupts only the sessions that record and do not override it.
    mutating func systemInterrupt(_ type: InterruptionType, _ reason: InterruptionReason) {
        if reason == .builtInMicMuted {
            microphoneMute(type)
            return
        }
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

    /// Apple: "the system interrupts the audio session that's capturing input from the
    /// microphone"; a session with `overrideMutedMicrophoneInterruption` stays active (and hears
    /// silence). The unmute ends those interruptions.
    private mutating func microphoneMute(_ type: InterruptionType) {
        switch type {
        case .began:
            guard !device.microphoneMuted else { return }
            device.microphoneMuted = true
            for j in apps.indices where apps[j].active && apps[j].category.hasInput
                && !apps[j].setup.options.contains(.overrideMutedMicrophoneInterruption) {
                interrupt(j, by: .microphoneMuted, reason: .builtInMicMuted)
            }
        case .ended:
            guard device.microphoneMuted else { return }
            device.microphoneMuted = false
            endInterruptions(by: .microphoneMuted, shouldResume: true, reason: .builtInMicMuted)
        }
    }
}
