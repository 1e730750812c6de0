import ArgumentParser
import ControlSocket

/// `iaa app APP foreground|background`, `iaa app APP task begin|end`: an app's life as iOS sees it.
struct AppLifecycle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Move an app to the foreground or background, or begin or end its background task.",
        usage: """
            iaa app <app> foreground|background
            iaa app <app> task begin|end
            """)

    /// What happens to the app.
    enum Change: String, ExpressibleByArgument, CaseIterable {
        case foreground, background, task
    }

    /// The background task's two ends.
    typealias TaskAction = ControlCall.TaskAction

    @OptionGroup var engine: EngineOptions

    @Argument(help: "The app's id.")
    var app: String

    @Argument(help: "foreground, background or task.")
    var change: Change

    @Argument(help: "begin or end (after task).")
    var taskAction: TaskAction?

    func validate() throws {
        if change == .task && taskAction == nil { throw ValidationError("app task needs begin or end") }
        if change != .task && taskAction != nil { throw ValidationError("\(change.rawValue) takes no further argument") }
    }

    func run() throws {
        let client = try engine.connect()
        switch (change, taskAction) {
        case (.task, let action?):
            OutcomeReport.print(try client.call(.task(app: app, action: action)))
        default:
            OutcomeReport.print(try client.call(change == .foreground ? .foreground(app: app) : .background(app: app)))
        }
    }
}
