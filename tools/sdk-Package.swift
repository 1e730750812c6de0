// swift-tools-version: 6.1
import PackageDescription

// The plugin SDK as tools/install lays it out in PREFIX/share/iaa/sdk: the C header plugins
// compile against and NodeKit, the Swift side of it. Scaffolded Swift plugins depend on this
// package by the path `iaa plugin sdk` prints.
let package = Package(
    name: "iaa",
    products: [
        .library(name: "NodeKit", targets: ["NodeKit"]),
        .library(name: "IAAPluginABI", targets: ["IAAPluginABI"]),
    ],
    targets: [
        .target(name: "IAAPluginABI"),
        .target(name: "NodeKit", dependencies: ["IAAPluginABI"]),
    ],
    swiftLanguageModes: [.v6]
)
