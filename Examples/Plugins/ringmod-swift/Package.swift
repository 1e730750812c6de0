// swift-tools-version: 6.1
import PackageDescription

// A plugin is a dynamic library that depends on NodeKit, from the plugin SDK in the iaa
// checkout (SDK/, what `iaa plugin sdk` prints for a binary built there).
let package = Package(
    name: "RingMod",
    products: [.library(name: "RingMod", type: .dynamic, targets: ["RingMod"])],
    dependencies: [.package(name: "iaa", path: "../../../SDK")],
    targets: [.target(name: "RingMod", dependencies: [.product(name: "NodeKit", package: "iaa")])],
    swiftLanguageModes: [.v6]
)
