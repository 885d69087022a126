// swift-tools-version:6.1
//
// The command-line tool, a package of its own: it needs swift-argument-parser, and an app that
// depends on the engine (the package one folder up) should neither fetch nor build that. Built by
// CMake (`make cmake-build`), together with the C library, in one SwiftPM workspace.
import PackageDescription

let package = Package(
    name: "OfflineODataTools",
    products: [
        .executable(name: "offline-odata", targets: ["offline-odata"]),
    ],
    dependencies: [
        .package(name: "OfflineOData", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "offline-odata",
            dependencies: [
                .product(name: "OfflineOData", package: "OfflineOData"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ]
)
