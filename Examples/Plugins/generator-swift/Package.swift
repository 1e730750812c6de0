// swift-tools-version: 6.1
import PackageDescription

// A plugin is a dynamic library that depends on NodeKit, the SDK in the iaa checkout.
let package = Package(
    name: "Generator",
    products: [.library(name: "Generator", type: .dynamic, targets: ["Generator"])],
    dependencies: [.package(name: "iaa", path: "../../..")],
    targets: [.target(name: "Generator", dependencies: [.product(name: "NodeKit", package: "iaa")])],
    swiftLanguageModes: [.v6]
)
