// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite, kept out of the root package so that ordo-one's benchmark (and its
// dependency tree) never enters the engine's own build. Build and run with `./run.sh`.
//
// ordo-one/benchmark 1.38.1 wants swift-runtime-interposer on Linux with Swift 6.3 through its
// default "RuntimeInterposer" trait; naming the traits here leaves that trait off, so SwiftPM
// prunes the dependency and the package resolves offline. Malloc counting stays on.
let package = Package(
    name: "iaa-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "iaa", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The same voice DSP written by hand in C: the floor the engine is compared with.
        .target(name: "CVoiceReference", cSettings: [.unsafeFlags(["-O3"])]),
        // Graph generators and workloads shared by both runners below.
        .target(name: "BenchKit", dependencies: [
            "CVoiceReference",
            .product(name: "RenderCore", package: "iaa"),
            .product(name: "AudioGraph", package: "iaa"),
            .product(name: "GraphFormat", package: "iaa"),
            .product(name: "Nodes", package: "iaa"),
            .product(name: "OfflineBackend", package: "iaa"),
        ]),
        // Plain runner: prints the one table with ratios (what run.sh calls).
        .executableTarget(name: "iaa-bench", dependencies: ["BenchKit"]),
        // The same workloads for `swift package benchmark` (ordo-one), for baselines and CI thresholds.
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                "BenchKit",
                .product(name: "GraphFormat", package: "iaa"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
