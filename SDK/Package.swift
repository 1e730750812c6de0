// swift-tools-version: 6.1
import PackageDescription

// The plugin SDK: the C header plugins compile against and NodeKit, the Swift side of it. In a
// checkout its Sources are links to the engine's own; tools/install copies them, with this file,
// to PREFIX/share/iaa/sdk. Swift plugins depend on this package by the path `iaa plugin sdk`
// prints (the examples by their path in the checkout): it depends on no other package, so a
// plugin's build resolves none of the engine's own dependencies.
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
