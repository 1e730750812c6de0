import AudioGraph
import LocatedJSON
import AudioSession

/// An app's lifecycle state at start, as `state` spells it.
private enum InitialState: String, CaseIterable {
    case foreground, background
}

extension Validator {
    /// The app's session as the graph sets it up, or nil for an app without `session` (a plain
    /// processing node the policy does not manage) or with a bad one (reported).
    ///
    /// `entitlements`, `requires`, `backgroundModes` and `state` are checked on every app, so a
    /// misspelling is caught before someone adds the session that would make it count.
    /// `pluginRequests`: the app's node type requests entitlements, so its `entitlements` matter
    /// even without a session (they are what the plugin gets).
    mutating func sessionSetup(of app: AppDescription, id: String?, role: AppRole, pluginRequests: Bool = false) -> AppSessionSetup? {
        var failed = false
        // The lazy pointers capture the app's place: capturing `app` copied all of it.
        let place = app.place
        let entitlements: [(value: Entitlement, pointer: String)] = SessionVocabulary.values(
            app.entitlements ?? [], "entitlement", listing: "entitlements",
            at: place.pointer + "/entitlements", &sink, failed: &failed)
        if let grants, let id { checkGrants(entitlements, of: id, against: grants) }
        let requested: [(value: Entitlement, pointer: String)] = SessionVocabulary.values(
            app.requires ?? [], "entitlement", listing: "entitlements",
            at: place.pointer + "/requires", &sink, failed: &failed)
        let modes: [(value: BackgroundMode, pointer: String)] = SessionVocabulary.values(
            app.backgroundModes ?? [], "background mode", listing: "background modes",
            at: place.pointer + "/backgroundModes", &sink, failed: &failed)
        var state = InitialState.background
        if let written = app.state {
            let known: InitialState? = SessionVocabulary.value(written, "state", listing: "states",
                                                               at: app.pointer + "/state", &sink)
            if let known { state = known } else { failed = true }
        }
        // A `session` of the wrong type was reported while reading; it still marks the app managed.
        let managed = app.session != nil || app.mistyped.contains("session")
        guard managed else {
            warnIgnoredFields(of: app, entitlementsUsed: pluginRequests)
            return nil
        }
        if state == .foreground { claimForeground(app) }
        guard let session = app.session, session.isObject else { return nil }
        let object = ObjectReader(session, pointer: app.pointer + "/session",
                                  allowed: DescriptionReader.Keys.session, sink: &sink)
        let choice = SessionVocabulary.categoryChoice(object, &sink, categoryRequired: false, checkOptions: true)
        let active = object.bool("active", &sink)
        guard !failed, let id, let choice, active != nil || object.member("active") == nil else { return nil }
        return AppSessionSetup(id: id, category: choice.category, mode: choice.mode, options: choice.options,
                               active: active ?? false, backgroundModes: Set(modes.map(\.value)),
                               entitlements: Set(entitlements.map(\.value)), foreground: state == .foreground,
                               isInterAppAudio: role != .app, requestedEntitlements: Set(requested.map(\.value)))
    }

    /// A graph may grant no more than the grants file in force allows the app.
    private mutating func checkGrants(_ entitlements: [(value: Entitlement, pointer: String)], of id: String,
                                      against grants: Grants) {
        for (entitlement, pointer) in entitlements where !grants.allows(entitlement, app: id) {
            let allowed = grants.entitlements(of: id).map(\.rawValue).sorted()
            sink.error(.missingEntitlement, at: pointer,
                       "the grants file \(grants.file) does not allow app \(JSONText.quoted(id)) the entitlement \(JSONText.quoted(entitlement.rawValue))",
                       hint: "remove it from the graph, or have the grants file's owner add it"
                           + (allowed.isEmpty ? " (it allows this app nothing)" : " (it allows: \(allowed.joined(separator: ", ")))"))
        }
    }

    /// Records `app` as the one foreground app, or reports that another one already is.
    private mutating func claimForeground(_ app: AppDescription) {
        guard let first = foregroundApp else {
            foregroundApp = app.pointer
            return
        }
        let firstApp = description.apps.first { $0.pointer == first }
        let firstName = firstApp?.id.map { "app \(JSONText.quoted($0))" } ?? first
        let line = description.sourceMap.location(of: first + "/state").map { " (line \($0.line))" } ?? ""
        let name = app.id.map { "app \(JSONText.quoted($0))" } ?? "this app"
        sink.error(.duplicateForeground, at: app.pointer + "/state",
                   "\(name) starts in the foreground, but \(firstName) already does\(line)",
                   hint: "at most one app may be foreground; make one of them \"background\"")
    }

    /// Warns that the session fields of an app without `session` do not apply.
    private mutating func warnIgnoredFields(of app: AppDescription, entitlementsUsed: Bool) {
        let written: [(key: String, present: Bool)] = [
            ("entitlements", app.entitlements != nil && !entitlementsUsed), ("requires", app.requires != nil),
            ("backgroundModes", app.backgroundModes != nil), ("state", app.state != nil),
        ]
        let keys = written.filter(\.present).map(\.key)
        guard let first = keys.first else { return }
        let name = app.id.map { "app \(JSONText.quoted($0))" } ?? "this app"
        let fields = SessionVocabulary.alternatives(keys.map { JSONText.quoted($0) }).replacing(" or ", with: " and ")
        let verb = keys.count == 1 ? "applies" : "apply"
        sink.warning(.ignoredSessionField, at: app.pointer + "/" + first, atKey: true,
                     "\(fields) only \(verb) to apps with a session, and \(name) has none",
                     hint: "add \"session\": {} to \(name) if the policy should manage it")
    }
}
