import LocatedJSON
import AudioSession
import NodeKit

extension Validator {
    /// The entitlement names a graph can grant and a plugin can request, in their usual order
    /// (`inter-app-audio`, `priority-audio`, `microphone`). Plugin loading checks a descriptor's
    /// requests against these.
    public static var entitlementNames: [String] { Entitlement.allCases.map(\.rawValue) }

    /// Reports every entitlement `type` requests that the graph does not grant `app`, at the app's
    /// `plugin` field: the graph's author is the trust root, and a plugin gets only what the graph
    /// grants (the graph's author is the trust root). The hint shows the `entitlements` that would grant all of them.
    ///
    /// Grants are the names written in the app's `entitlements`; a misspelt one was reported
    /// while checking the session, and grants nothing here.
    mutating func checkPluginEntitlements(of app: AppDescription, id: String?, type: NodeType) {
        let granted = app.entitlements ?? []
        var missing: [String] = []
        for name in type.requestedEntitlements where !granted.contains(name) && !missing.contains(name) {
            missing.append(name)
        }
        guard !missing.isEmpty else { return }
        let plugin = JSONText.quoted(app.plugin ?? type.id)
        let name = id.map { "app \(JSONText.quoted($0))" } ?? "its app"
        let target = id.map { " on \(JSONText.quoted($0))" } ?? ""
        let grants = (granted.filter { Self.entitlementNames.contains($0) } + missing).map(JSONText.quoted)
        for entitlement in missing {
            sink.error(.missingEntitlement, at: app.pointer + "/plugin",
                       "plugin \(plugin) requests the \(JSONText.quoted(entitlement)) entitlement, which the graph does not grant \(name)",
                       hint: "grant it: \"entitlements\": [\(grants.joined(separator: ", "))]\(target) (only if you trust the plugin)")
        }
    }
}
