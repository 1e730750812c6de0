import AudioSession

/// The entitlements a deployment allows each app, from a grants file (`iaa run --grants FILE`).
///
/// When one is in force it bounds what graph files may grant: a graph that grants an app an
/// entitlement the grants file does not allow it is refused with `missingEntitlement`. So an
/// integrator can let others write graphs without letting them hand out `priority-audio`.
public struct Grants: Sendable, Equatable {
    /// The file, as it was named, for error messages.
    public let file: String
    /// Per app id; `*` applies to every app.
    public let allowed: [String: Set<Entitlement>]

    public init(file: String, allowed: [String: Set<Entitlement>]) {
        self.file = file
        self.allowed = allowed
    }

    /// Whether app `id` may hold `entitlement`.
    public func allows(_ entitlement: Entitlement, app id: String) -> Bool {
        allowed[id]?.contains(entitlement) == true || allowed["*"]?.contains(entitlement) == true
    }

    /// What app `id` may hold, for hints.
    public func entitlements(of id: String) -> Set<Entitlement> {
        (allowed[id] ?? []).union(allowed["*"] ?? [])
    }
}
