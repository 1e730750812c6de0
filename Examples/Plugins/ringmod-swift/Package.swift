// swift-tools-version: 6.1
import PackageDescription

// A plugin is a dynamic library that depends on NodeKit, the SDK in the iaa checkout.
let package = Package(
    name: "RingMod",
    products: [.library(name: "RingMod", type: .dynamic, targets: ["RingMod"])],
    dependencies: [.package(name: "iaa", path: "../../..")],
    targets: [.target(name: "RingMod", dependencies: [.product(name: "NodeKit", package: "iaa")])],
    swiftLanguageModes: [.v6]
)
