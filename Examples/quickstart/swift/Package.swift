// swift-tools-version:6.1
// The Swift quickstart: a package of its own that uses the engine from this repository by path.
import PackageDescription

let package = Package(
    name: "quickstart",
    dependencies: [.package(name: "OfflineOData", path: "../../..")],
    targets: [
        .executableTarget(name: "quickstart", dependencies: [.product(name: "OfflineOData", package: "OfflineOData")],
                          path: "Sources"),
    ]
)
