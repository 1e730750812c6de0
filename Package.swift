// swift-tools-version: 6.1
import PackageDescription

// The file readers' code, optimised in debug builds too: the graph fuzz tests load 10,000 mutated
// graph and timeline files through it on every test run, in ~14 CPU-seconds optimised against ~34
// unoptimised (2-core AMD EPYC). Release builds are optimised anyway.
let optimisedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

// One target per layer; the dependency arrows below are the only imports allowed (README, "How it works").
let package = Package(
    name: "iaa",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "iaa", targets: ["iaa"]),
        .library(name: "NodeKit", targets: ["NodeKit"]),
        .library(name: "IAAPluginABI", targets: ["IAAPluginABI"]),
        // For the benchmark package in Benchmarks/, which depends on this one by path.
        .library(name: "RenderCore", targets: ["RenderCore"]),
        .library(name: "AudioGraph", targets: ["AudioGraph"]),
        .library(name: "GraphFormat", targets: ["GraphFormat"]),
        .library(name: "Nodes", targets: ["Nodes"]),
        .library(name: "OfflineBackend", targets: ["OfflineBackend"]),
        // The session library programs link to speak for their app (docs/programs.md):
        // libiaa-session.so with iaa_session.h, and the Swift face on top.
        .library(name: "iaa-session", type: .dynamic, targets: ["CIAASession"]),
        .library(name: "IAASession", targets: ["IAASession"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The dashboard's HTTP and WebSocket server (docs/dashboard.md).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(name: "CJack", pkgConfig: "jack", providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(name: "CLilv", pkgConfig: "lilv-0", providers: [.apt(["liblilv-dev"])]),
        // LV2 (through lilv) and LADSPA plugins behind one small C interface; its run is real-time safe.
        .target(name: "CPluginFormats", dependencies: ["CLilv"], linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // liblo: OSC, which New Session Manager speaks.
        .systemLibrary(name: "CLiblo", pkgConfig: "liblo", providers: [.apt(["liblo-dev"])]),
        // SQLite: the journal of acknowledged changes (docs/state.md).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The C header plugins compile against (and the Swift plugin export helper uses).
        .target(name: "IAAPluginABI"),
        // The session library: a control-protocol client in C; json-c encodes and decodes its lines.
        .target(name: "CIAASession", linkerSettings: [.linkedLibrary("json-c"), .linkedLibrary("pthread")]),
        .target(name: "IAASession", dependencies: ["CIAASession"]),
        .target(name: "NodeKit", dependencies: ["IAAPluginABI"]),
        // The audio-session policy: a pure, deterministic state machine (imports nothing).
        .target(name: "AudioSession"),
        // Measurements of rendered audio (RMS, peak, frequency, steps) for tests and render reports.
        .target(name: "SignalAnalysis"),
        .target(name: "CFloatEnvironment"),
        .target(name: "CThreadNotes"),
        // The built-in nodes' and the renderer's inner loops, compiled for baseline and for AVX2+FMA,
        // one chosen at load time (README, "How it works").
        .target(name: "CKernels"),
        // The atomics and futexes of a cycle split across threads (docs/parallel.md).
        .target(name: "CRenderCrew"),
        // The one JSON reader (located values, recovering strict parse) and the one escaper.
        .target(name: "LocatedJSON", swiftSettings: optimisedInDebug),
        // "Did you mean": the closest name to a misspelt one, for every layer that names things.
        .target(name: "Suggestions"),
        .target(name: "FileTrust"),
        // The real-time core: the plan, the renderer, node slots, the plan exchange, the render
        // crew, compensation lines. Knows no graph, session or policy: nodes and backends build on it.
        .target(name: "RenderCore", dependencies: ["NodeKit", "CFloatEnvironment", "CThreadNotes", "CKernels", "CRenderCrew"]),
        // The graph model and its rules: the validated graph, apps and their sessions, programs,
        // isolation and links, commands, Inter-App Audio's rules, and the plan compiler that
        // turns a graph into RenderCore's plan. Reads no file.
        .target(name: "AudioGraph", dependencies: ["RenderCore", "NodeKit", "AudioSession", "CKernels", "CThreadNotes"]),
        // Graph, timeline and grants files: decoding (JSON, and YAML through Yams), the description,
        // validation with located diagnostics, timeline actions. Produces what AudioGraph runs.
        .target(name: "GraphFormat", dependencies: ["AudioGraph", "NodeKit", "AudioSession", "LocatedJSON", "Suggestions", "FileTrust",
                                                    .product(name: "Yams", package: "Yams")],
                swiftSettings: optimisedInDebug),
        .target(name: "AudioFiles", dependencies: ["CSndfile"]),
        .target(name: "Nodes", dependencies: ["NodeKit", "RenderCore", "CKernels"]),
        .target(name: "OfflineBackend", dependencies: ["RenderCore", "NodeKit", "AudioFiles"]),
        // Loads plugin libraries by path (dlopen, control side only) and wraps them as node types.
        .target(name: "PluginHost", dependencies: ["NodeKit", "AudioSession", "Suggestions", "FileTrust", "IAAPluginABI", "CPluginFormats"]),
        .target(name: "JackBackend", dependencies: ["RenderCore", "NodeKit", "CJack", "CThreadNotes"]),
        // Process isolation's system calls (memfd, futex, fork/exec with limits, Landlock, seccomp through
        // libseccomp) and the shared-memory layout engine and child compile against.
        .target(name: "CIsolation", dependencies: ["IAAPluginABI"], linkerSettings: [.linkedLibrary("seccomp")]),
        // Node apps in a child process: the node the engine runs, the supervisor, the child's loop.
        .target(name: "Isolation", dependencies: ["NodeKit", "RenderCore", "IAAPluginABI", "CIsolation", "CThreadNotes"]),
        // The control socket: SO_PEERCRED shim (struct ucred is not visible from Swift's Glibc).
        .target(name: "CPeerCredentials"),
        .target(name: "ControlSocket", dependencies: ["CPeerCredentials", "LocatedJSON"], exclude: ["PROTOCOL.md"]),
        // A New Session Manager client: the session's graph file opened and saved on the server's word.
        .target(name: "SessionManager", dependencies: ["CLiblo"]),
        // Where acknowledged changes are kept: a snapshot file and an SQLite journal (docs/state.md).
        .target(name: "StateStore", dependencies: ["CSQLite", "FileTrust"]),
        // `iaa web`: a page in the browser bridged to the control socket over a WebSocket, served
        // by SwiftNIO's HTTP and WebSocket handlers, behind a token, a Host/Origin check and the
        // peer's uid (docs/dashboard.md).
        .target(name: "Dashboard", dependencies: [
            "LocatedJSON",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
        ]),
        // Links between machines: the bridge processes the engine keeps running and their states,
        // and a satellite's control link to its primary.
        .target(name: "Links", dependencies: ["AudioGraph", "CIsolation", "ControlSocket"]),
        .target(name: "Engine", dependencies: ["Links", "RenderCore", "AudioGraph", "GraphFormat", "Suggestions", "AudioSession", "NodeKit", "Nodes", "OfflineBackend", "JackBackend", "AudioFiles", "PluginHost", "ControlSocket", "Isolation", "CThreadNotes", "StateStore"]),
        .executableTarget(name: "iaa", dependencies: [
            "Engine", "Links", "PluginHost", "NodeKit", "RenderCore", "AudioGraph", "GraphFormat", "AudioSession", "ControlSocket", "SessionManager", "AudioFiles", "Isolation", "Dashboard",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Test helpers every suite shares: the package's paths and binaries, private temporary
        // folders, running a command, polling.
        .target(name: "TestKit", path: "Tests/TestKit"),
        .testTarget(name: "AudioSessionTests", dependencies: ["TestKit", "AudioSession"]),
        .testTarget(name: "DashboardTests", dependencies: ["Dashboard"]),
        .testTarget(name: "LinksTests", dependencies: ["TestKit", "Links", "AudioGraph"]),
        .testTarget(name: "ControlSocketTests", dependencies: ["TestKit", "ControlSocket", "CIAASession"]),
        // Runs the built `iaa` against an in-process control server with canned replies.
        .testTarget(name: "CommandLineTests", dependencies: ["TestKit", "ControlSocket"]),
        .testTarget(name: "PluginHostTests", dependencies: ["TestKit", "PluginHost", "Engine", "RenderCore", "AudioGraph", "GraphFormat", "IAAPluginABI", "Nodes", "OfflineBackend", "SignalAnalysis", "NodeKit", "LocatedJSON"]),
        // Tests find Tests/Fixtures and graphs/ through #filePath.
        .testTarget(name: "LocatedJSONTests", dependencies: ["LocatedJSON"]),
        .testTarget(name: "GraphFormatTests", dependencies: ["TestKit", "GraphFormat", "AudioGraph", "AudioSession", "NodeKit", "Nodes", "LocatedJSON", "Suggestions"]),
        .testTarget(name: "NodesTests", dependencies: ["Nodes", "NodeKit", "SignalAnalysis", "CKernels"]),
        .testTarget(name: "SignalAnalysisTests", dependencies: ["SignalAnalysis"]),
        .testTarget(name: "StateStoreTests", dependencies: ["TestKit", "StateStore"]),
        .testTarget(name: "AudioFilesTests", dependencies: ["TestKit", "AudioFiles"]),
        .testTarget(name: "OfflineBackendTests", dependencies: ["OfflineBackend", "Engine", "Nodes", "NodeKit", "RenderCore", "AudioGraph", "GraphFormat", "SignalAnalysis"]),
        .testTarget(name: "EngineTests", dependencies: ["TestKit", "Engine", "Links", "RenderCore", "AudioGraph", "GraphFormat", "AudioSession", "OfflineBackend", "AudioFiles", "SignalAnalysis", "ControlSocket", "StateStore"]),
        // Runs the built `iaa` against the private JACK server that tools/test starts.
        .testTarget(name: "JackIntegrationTests", dependencies: ["TestKit", "AudioFiles", "SignalAnalysis", "ControlSocket", "IAASession"]),
    ],
    swiftLanguageModes: [.v6]
)
