/// What is heard: audibility, ducking, gains and the hints, all derived from the flags so a
/// gain can never disagree with the state it comes from.
extension SessionPolicy {
    /// Heard in the mix: a running, uninterrupted output session that the device does not silence,
    /// while no other app's `record` session silences playback.
    func isAudible(_ i: Int) -> Bool {
        let record = apps[i]
        let category = record.category
        return record.active && record.playing && record.interruptedBy == nil && !record.suspended
            && category.hasOutput
            && !(device.silent && category.isSilencedBySilentSwitch)
            && !(device.locked && category.isSilencedByLock)
            && !isSilencedByRecording(i)
    }

    /// Apple on `record`: it "has the effect of silencing virtually all output on the system, for
    /// as long as the session is active".
    func isSilencedByRecording(_ i: Int) -> Bool {
        apps.indices.contains { $0 != i && apps[$0].active && apps[$0].category == .record }
    }

    /// Lowered to the duck level because another audible app's session has `duckOthers`. Apple:
    /// "all other audio on the device—apart from phone audio—lowers in volume", so a call is
    /// never ducked.
    func isDucked(_ i: Int) -> Bool {
        isAudible(i) && !apps[i].isCall
            && apps.indices.contains { $0 != i && apps[$0].setup.options.contains(.duckOthers) && isAudible($0) }
    }

    /// The gain target the audio thread ramps to: 1, the duck level, or 0.
    func gain(_ i: Int) -> Float {
        guard isAudible(i) else { return 0 }
        return isDucked(i) ? configuration.duckGain : 1
    }

    /// The apps heard with a non-mixable session: the "primary audio" of the silencing hints.
    func audibleNonMixable() -> Set<String> {
        Set(apps.indices.filter { isAudible($0) && !apps[$0].isMixable }.map { apps[$0].id })
    }

    func state(at i: Int) -> AppSessionState {
        let record = apps[i]
        let others = apps.indices.filter { $0 != i }
        return AppSessionState(
            id: record.id, category: record.category, mode: record.setup.mode, options: record.setup.options,
            active: record.active, playing: record.playing, recording: record.recording,
            foreground: record.setup.foreground, suspended: record.suspended,
            interrupted: record.interruptedBy != nil, ducked: isDucked(i), audible: isAudible(i), gain: gain(i),
            otherAudioPlaying: others.contains { isAudible($0) },
            secondaryAudioShouldBeSilencedHint: others.contains { isAudible($0) && !apps[$0].isMixable },
            backgroundTimeRemaining: backgroundTimeRemaining(record))
    }

    /// Nil without a task; as on iOS, "suitably large" while foreground, else what is left.
    func backgroundTimeRemaining(_ record: AppRecord) -> Double? {
        guard record.taskRunning else { return nil }
        guard let expiry = record.taskExpiry else { return .greatestFiniteMagnitude }
        return max(0, expiry - time)
    }

    /// Sends `silenceSecondaryAudioHint` when primary audio starts or stops being heard, only to
    /// the foreground app with an active session (as Apple documents), never to the cause.
    mutating func emitSilenceHints(before: Set<String>) {
        let after = audibleNonMixable()
        guard before.isEmpty != after.isEmpty else { return }
        let type: InterruptionType = after.isEmpty ? .ended : .began
        for i in apps.indices where apps[i].setup.foreground && apps[i].active
            && !before.contains(apps[i].id) && !after.contains(apps[i].id) {
            emit(i, .silenceSecondaryAudioHint(type: type))
        }
    }

    mutating func emit(_ i: Int, _ kind: SessionEvent.Kind) {
        outbox.append(SessionEvent(app: apps[i].id, kind: kind, time: time))
    }
}
