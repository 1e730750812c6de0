/// Category, mode and options (docs/session-policy.md, Options and Modes), and the app's own I/O.
extension SessionPolicy {
    /// An option the category does not accept is `badParam` and changes nothing (the same table
    /// `iaa validate` uses); a mode it does not support is a warning and the session behaves as
    /// `default`.
    mutating func setCategory(_ i: Int, _ category: SessionCategory, _ mode: SessionMode,
                              _ options: Set<SessionOption>) -> (SessionError?, [String]) {
        let id = apps[i].id
        let accepted = SessionOption.allCases.filter { $0.categories.contains(category) }
        if let bad = SessionOption.allCases.first(where: { options.contains($0) && !accepted.contains($0) }) {
            let list = accepted.isEmpty ? "none" : accepted.map(\.rawValue).joined(separator: ", ")
            return (SessionError(.badParam, app: id,
                                 "app \"\(id)\": option \(bad.rawValue) is not accepted by category \(category.rawValue) "
                                     + "(accepted: \(list)); remove it or choose a category that accepts it"), [])
        }
        var warnings: [String] = []
        if !mode.categories.contains(category) {
            let modes = SessionMode.allCases.filter { $0.categories.contains(category) }.map(\.rawValue)
            warnings.append("app \"\(id)\": mode \(mode.rawValue) is not supported by category \(category.rawValue); "
                                + "the session behaves as mode default (accepted: \(modes.joined(separator: ", ")))")
        }
        // Apple: both options imply mixWithOthers, and ambient sets it by itself (it may not be
        // set explicitly there, as the vocabulary says).
        var options = options
        if category == .ambient || !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers]) {
            options.insert(.mixWithOthers)
        }
        let before = apps[i]
        let becomesNonMixable = before.active && before.isMixable && !AppRecord.isMixable(category, options)
        if becomesNonMixable, let refusal = admissionError(i, mixable: false, startsAudio: false) {
            return (refusal, warnings)
        }
        apps[i].setup.category = category
        apps[i].setup.mode = mode
        apps[i].setup.options = options
        if !category.hasInput { apps[i].recording = false }
        guard before.active else { return (nil, warnings) }
        if category != before.category { emit(i, .routeChange(reason: .categoryChange)) }
        // An active session that stops mixing takes the place rule 1 gives a new activation.
        if becomesNonMixable { interruptOthers(by: i) }
        return (nil, warnings)
    }

    /// Restarts the app's I/O (rule 7 for the session and the category, rule 3 in the background).
    mutating func startAudio(_ i: Int, recording: Bool) -> SessionError? {
        let record = apps[i]
        let id = record.id
        guard record.active else {
            return SessionError(.sessionNotActive, app: id,
                                "app \"\(id)\" has no active session; activate it before starting audio")
        }
        if recording && !record.category.hasInput {
            return SessionError(.incompatibleCategory, app: id,
                                "app \"\(id)\": category \(record.category.rawValue) cannot record "
                                    + "(categories that can: record, playAndRecord, multiRoute)")
        }
        if let refusal = admissionError(i, mixable: true, startsAudio: true) { return refusal }
        if recording, let refusal = mutedMicrophoneError(i) { return refusal }
        if recording && !record.setup.foreground && record.isMixable && !record.setup.isInterAppAudio {
            return SessionError(.cannotStartRecording, app: id,
                                "app \"\(id)\" is in the background and may not start a mixable recording unless it "
                                    + "is an Inter-App Audio app")
        }
        apps[i].playing = true
        apps[i].recording = recording
        return nil
    }

    /// Pauses the app's I/O; the session stays active (a background app is then suspended). An
    /// interrupted app that stops gives up its resumption.
    mutating func stopAudio(_ i: Int) {
        apps[i].playing = false
        apps[i].recording = false
        apps[i].mayResume = false
    }

    /// The Ring/Silent switch and the screen lock; locking sends the foreground app to the
    /// background, unlocking brings it back (ours).
    mutating func setDevice(silent: Bool?, locked: Bool?) {
        if let silent { device.silent = silent }
        guard let locked, locked != device.locked else { return }
        device.locked = locked
        if locked {
            let front = apps.indices.first { apps[$0].setup.foreground }
            foregroundBeforeLock = front.map { apps[$0].id }
            if let front { moveToBackground(front) }
        } else {
            if let id = foregroundBeforeLock, let i = index(of: id) { moveToForeground(i) }
            foregroundBeforeLock = nil
        }
    }

    /// Tells every active output session that the route went or came; gains do not change (the
    /// engine hears nothing without a route anyway, and built-in players pause themselves).
    mutating func setRoute(available: Bool) {
        guard available != device.routeAvailable else { return }
        device.routeAvailable = available
        let reason: RouteChangeReason = available ? .newDeviceAvailable : .oldDeviceUnavailable
        for j in apps.indices where apps[j].active && apps[j].category.hasOutput {
            emit(j, .routeChange(reason: reason))
        }
    }
}
