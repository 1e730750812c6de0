// swift-tools-version: 6.1
import PackageDescription

// A plugin is a dynamic library that depends on NodeKit, from the plugin SDK in the iaa
// checkout (SDK/, what `iaa plugin sdk` prints for a binary built there).
let package = Package(
    name: "Generator",
    products: [.library(name: "Generator", type: .dynamic, targets: ["Generator"])],
    dependencies: [.package(name: "iaa", path: "../../../SDK")],
    targets: [.target(name: "Generator", dependencies: [.product(name: "NodeKit", package: "iaa")])],
    swiftLanguageModes: [.v6]
)
