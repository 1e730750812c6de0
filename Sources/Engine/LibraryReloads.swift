import AudioGraph
import AudioSession
import ControlSocket
import Foundation
import NodeKit
import PluginHost

/// What reloading plugin libraries needs of the engine beyond ``EngineHost``: installing the
/// graph with the new code, and reading a request's app.
protocol ReloadHost: EngineHost {
    func install(_ newGraph: Graph, sameSessions: Bool) throws -> [SessionEvent]
    var decoder: RequestDecoder { get }
}

/// `reload` and `iaa run --watch`: swapping in the current build of rebuilt plugin libraries
/// while the engine runs, keeping each app's parameter values and every connection.
///
/// This component owns the folder watcher of `iaa run --watch` (none without it) and acts on
/// the engine through its ``ReloadHost``. Confined to the engine's control queue.
final class LibraryReloads: @unchecked Sendable {
    /// `iaa run --watch`: reloads rebuilt plugin libraries; nil without the option.
    var watcher: LibraryWatcher?
    unowned let host: ReloadHost

    init(host: ReloadHost) {
        self.host = host
    }

    /// What made the engine swap in a rebuilt library, as the `reload` event's `by` says.
    typealias Cause = ReloadNotice.Cause

    /// What the current build of one app's library offers in its place, or why it cannot go in.
    enum Outcome {
        case unchanged(library: String)
        case rebuilt(App, library: String, identity: String)
    }

    /// `reload` (`app`): swaps in the app's rebuilt library, or says it is unchanged.
    func reload(_ request: ControlRequest) throws -> ControlReply {
        let (_, app) = try host.decoder.app(request)
        switch try rebuiltApp(app) {
        case .unchanged(let library):
            return .result(ReloadReply(app: app.id, reloaded: false, library: library).json)
        case .rebuilt(let new, let library, let identity):
            try swapIn([new], by: .request)
            return .result(ReloadReply(app: app.id, reloaded: true, library: library, identity: identity).json)
        }
    }

    /// Reloads every app whose library file changed on disk (`--watch`); a library that does
    /// not load (a build still being written, a broken one) is a warning, and the old code runs on.
    func reloadChanged() {
        host.checkOnQueue()
        var rebuilt: [App] = []
        for app in host.graph.apps where app.type.code != nil {
            do {
                if case .rebuilt(let new, _, _) = try rebuiltApp(app) { rebuilt.append(new) }
            } catch let error as ControlError {
                StandardError.warning("cannot reload \"\(app.id)\": \(error.message)")
            } catch {
                StandardError.warning("cannot reload \"\(app.id)\": \(error)")
            }
        }
        guard !rebuilt.isEmpty else { return }
        do {
            try swapIn(rebuilt, by: .watch)
        } catch {
            StandardError.warning("cannot reload \(rebuilt.map(\.id).joined(separator: ", ")): \(error)")
        }
    }

    /// The app as it would run the current build of its library. A build that changes what the
    /// graph was validated against (ports, parameters, entitlements, component) is refused:
    /// `apply` loads it with every check.
    func rebuiltApp(_ app: App) throws -> Outcome {
        guard let code = app.type.code else {
            throw ControlError(.notReloadable, "app \"\(app.id)\" runs the built-in node type \"\(app.type.id)\"; only plugin libraries reload",
                               field: "app")
        }
        guard let identity = LibraryFileIdentity(path: code.library) else {
            throw ControlError(.libraryMissing, "cannot read \(code.library), the library of app \"\(app.id)\": it was moved or deleted; rebuild it there, or `iaa apply` a graph that names where it is now",
                               field: "app")
        }
        guard identity.description != code.identity else { return .unchanged(library: code.library) }
        // Opened as a graph load opens it: an untrusted library is described by a sandboxed child.
        let library: NativeLibrary
        do {
            library = try GraphLoading.resolver.open(library: code.library)
        } catch {
            let refusal = GraphLoading.resolutionError(error)
            throw ControlError(refusal.code, refusal.hint.map { "\(refusal.message); \($0)" } ?? refusal.message, field: "app")
        }
        let selector = PluginResolver.split(app.type.id).selector
        let ids = library.descriptorIDs
        guard let descriptor = selector ?? (ids.count == 1 ? ids.first : nil),
              let type = library.nodeType(descriptor, id: app.type.id) else {
            throw ControlError(.unknownPlugin, "the rebuilt \(code.library) no longer offers \"\(selector ?? app.type.id)\" (it offers \(ids.joined(separator: ", ")))",
                               field: "app")
        }
        let changes = [("ports", type.layout(app.configuration) != app.layout), ("parameters", type.parameters != app.type.parameters),
                       ("entitlements", type.requestedEntitlements != app.type.requestedEntitlements),
                       ("component", type.component != app.type.component)].filter(\.1).map(\.0)
        guard changes.isEmpty else {
            throw ControlError(.libraryChanged, "the rebuilt \(code.library) changes the \(changes.joined(separator: " and ")) of app \"\(app.id)\"; a reload keeps those, so `iaa apply` the graph (edited to match) to load it with every check",
                               field: "app")
        }
        let new = App(id: app.id, role: app.role, type: type, configuration: app.configuration, parameters: app.parameters,
                      layout: app.layout, session: app.session, component: app.component, isolation: app.isolation)
        return .rebuilt(new, library: code.library, identity: library.identity.description)
    }

    /// Points the `--watch` watcher at the libraries the running graph loaded.
    func watchFolders() {
        host.checkOnQueue()
        guard let watcher else { return }
        let libraries = Set(host.graph.apps.compactMap { $0.type.code?.library }).sorted()
        for warning in watcher.watch(libraries: libraries) { StandardError.warning(warning) }
    }

    /// Installs the running graph with `apps` replaced, every app keeping its live parameter
    /// values (what `iaa set` changed too), and announces each reload on the event stream.
    func swapIn(_ apps: [App], by cause: Cause) throws {
        let plan = host.backend.currentPlan
        let replaced = Dictionary(uniqueKeysWithValues: apps.map { ($0.id, $0) })
        let live = host.graph.apps.map { app in
            let base = replaced[app.id] ?? app
            let values = app.type.parameters.indices.map { plan?.slot(for: app.id)?.parameterTarget($0) ?? app.parameters[$0] }
            return App(id: base.id, role: base.role, type: base.type, configuration: base.configuration, parameters: values,
                       layout: base.layout, session: base.session, component: base.component, program: base.program,
                       link: base.link, isolation: base.isolation)
        }
        let current = host.graph
        let newGraph = Graph(name: current.name, apps: live, connections: current.connections,
                             externalConnections: current.externalConnections, order: current.order, policy: current.policy,
                             transport: current.transport, exposure: current.exposure, isolation: current.isolation,
                             admission: current.admission, latency: current.latency)
        do {
            host.publisher.publish(try host.install(newGraph, sameSessions: true))
        } catch let error as PluginCreateError {
            // Nothing changed: the node is created before the old one fades out.
            throw ControlError(.createFailed, "\(error); the old build keeps running", field: "app")
        }
        announce(apps.map(\.id), by: cause)
        watchFolders()
    }

    /// One `reload` line on the event stream and stderr per app now running a rebuilt library.
    func announce(_ apps: [String], by cause: Cause) {
        for id in apps {
            let library = host.graph.appIndex(id).flatMap { host.graph.apps[$0].type.code?.library } ?? ""
            host.publisher.announce(.reload(ReloadNotice(app: id, library: library, by: cause)))
            StandardError.write("iaa: reloaded \"\(id)\" from the rebuilt \(library) (\(cause.rawValue))")
        }
    }
}
