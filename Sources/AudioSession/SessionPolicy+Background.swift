/// Foreground, background, suspension and background tasks (docs/session-policy.md, Background execution).
extension SessionPolicy {
    /// Makes the app the one foreground app; the previous one goes to the background. While the
    /// screen is locked nobody is foreground: the app is remembered for the unlock (ours).
    mutating func bringToForeground(_ i: Int) -> [String] {
        if device.locked {
            foregroundBeforeLock = apps[i].id
            return ["app \"\(apps[i].id)\" will be foreground when the screen unlocks"]
        }
        guard !apps[i].setup.foreground else { return [] }
        for j in apps.indices where apps[j].setup.foreground { moveToBackground(j) }
        moveToForeground(i)
        return []
    }

    mutating func sendToBackground(_ i: Int) {
        if foregroundBeforeLock == apps[i].id { foregroundBeforeLock = nil }
        if apps[i].setup.foreground { moveToBackground(i) }
    }

    /// A suspended app is resumed; a running background task stops counting down.
    mutating func moveToForeground(_ i: Int) {
        apps[i].setup.foreground = true
        apps[i].taskExpiry = nil
        apps[i].taskWarned = false
        if apps[i].suspended {
            apps[i].suspended = false
            emit(i, .resumed)
        }
    }

    /// Apple: "If the app does not select this mode, any audio being played or recorded by the
    /// app stops when the app moves to the background." Only the `audio` background mode, in a
    /// category that plays in the background, keeps it running; a background task keeps the
    /// app's code running, not its audio. Suspension, if due, happens in `settle`, after the whole
    /// action.
    mutating func moveToBackground(_ i: Int) {
        apps[i].setup.foreground = false
        if !(apps[i].setup.backgroundModes.contains(.audio) && apps[i].category.playsInBackground) {
            apps[i].playing = false
            apps[i].recording = false
        }
        if apps[i].taskRunning { startTaskCountdown(i) }
    }

    private mutating func startTaskCountdown(_ i: Int) {
        apps[i].taskExpiry = time + configuration.backgroundTaskSeconds
        apps[i].taskWarned = false
    }

    /// One task per app: beginning another while one runs changes nothing (the time left does not
    /// grow, as on iOS). A suspended app runs no code, so it cannot begin one.
    mutating func beginBackgroundTask(_ i: Int) -> [String] {
        if apps[i].suspended {
            return ["app \"\(apps[i].id)\" is suspended and cannot begin a background task"]
        }
        guard !apps[i].taskRunning else { return [] }
        apps[i].taskRunning = true
        if !apps[i].setup.foreground { startTaskCountdown(i) }
        return []
    }

    mutating func endBackgroundTask(_ i: Int) {
        apps[i].taskRunning = false
        apps[i].taskExpiry = nil
        apps[i].taskWarned = false
    }

    /// Warns of, then ends, background tasks whose time has come.
    mutating func fireDueDeadlines() {
        for i in apps.indices {
            guard apps[i].taskRunning, let expiry = apps[i].taskExpiry else { continue }
            if !apps[i].taskWarned && time >= expiry - configuration.backgroundTaskWarningSeconds {
                apps[i].taskWarned = true
                emit(i, .backgroundTaskWillExpire)
            }
            if time >= expiry { endBackgroundTask(i) }
        }
    }

    /// A background app keeps running only while its active session plays in the background
    /// with the `audio` mode, or a background task holds it; otherwise it is suspended, and an
    /// active session it had ends with `appWasSuspended`. Not during the app's own turn.
    mutating func suspendStrandedApps() {
        for i in apps.indices {
            let record = apps[i]
            guard !record.setup.foreground, !record.suspended, !record.taskRunning,
                  !record.keepsRunningInBackground, record.id != turnApp else { continue }
            if record.active { interrupt(i, by: .suspension, reason: .appWasSuspended) }
            apps[i].suspended = true
            emit(i, .suspended)
        }
    }
}
