// swift-tools-version:6.1
//
// The one definition of the Swift build. CMake (CMakeLists.txt) only drives it for C and C++ users.
import PackageDescription

/// The C boundary's linker settings: export exactly the `ood_*` functions and give the shared
/// library the SONAME its C users record. `unsafeFlags` is accepted because this is a root package.
let cBoundaryLinkerSettings: [LinkerSetting] = [
    .unsafeFlags([
        "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/OfflineODataC/exports.map",
        "-Xlinker", "-soname=libofflineodata.so.0",
        // lld, not gold: gold leaves local Swift metadata symbols in the dynamic symbol table.
        "-use-ld=lld",
    ], .when(platforms: [.linux])),
]

let package = Package(
    name: "OfflineOData",
    products: [
        // libofflineodata.so, for C, C++ and Python (ctypes). Built with `-Xswiftc -static-stdlib`
        // for anything installed; see the Makefile and CMakeLists.txt.
        .library(name: "offlineodata", type: .dynamic, targets: ["OfflineODataC"]),
        // The engine for Swift apps: `import OfflineODataFoundation` (the engine, plus Codable,
        // Date and Data helpers); the engine module itself stays Foundation-free for the C library.
        .library(name: "OfflineOData", targets: ["OfflineOData", "OfflineODataFoundation"]),
        .executable(name: "offline-odata-conformance", targets: ["offline-odata-conformance"]),
        // libFuzzer harnesses; a plain build replays a corpus (see BUILD-RECIPE §7).
        .executable(name: "offline-odata-fuzz", targets: ["offline-odata-fuzz"]),
    ],
    // None: an app that depends on the engine fetches and builds nothing else. The command-line
    // tool, which needs swift-argument-parser, is the package in Tools/.
    dependencies: [],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libFuzzer's driver entry point, declared weak so that plain builds link.
        .systemLibrary(name: "CLibFuzzer"),
        // The hand-written public header, imported by the C boundary for its enums and types.
        .systemLibrary(name: "COfflineODataHeader"),
        // Encryption at rest: the SQLite VFS that encrypts a store's pages (docs/ENCRYPTION.md).
        .target(
            name: "CStoreCipher",
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        .target(
            name: "OfflineOData",
            dependencies: ["CSQLite", "CLibXML2", "CCurl", "CStoreCipher"]
        ),
        .target(
            name: "OfflineODataFoundation",
            dependencies: ["OfflineOData"]
        ),
        .target(
            name: "OfflineODataC",
            dependencies: ["OfflineOData", "COfflineODataHeader"],
            exclude: ["exports.map"],
            linkerSettings: cBoundaryLinkerSettings
        ),
        .executableTarget(
            name: "offline-odata-fuzz",
            dependencies: ["OfflineOData", "CLibFuzzer"],
            path: "Sources/OfflineODataFuzz"
        ),
        // `make bench`: the engine's benchmarks, each against a baseline measured in the same run.
        .executableTarget(
            name: "offline-odata-benchmarks",
            dependencies: ["OfflineOData", "CLibXML2", "CSQLite"],
            path: "Benchmarks/OfflineODataBenchmarks"
        ),
        // `swift run offline-odata-conformance`: the OASIS ABNF test cases against the parser.
        .executableTarget(
            name: "offline-odata-conformance",
            dependencies: ["OfflineOData"],
            path: "Tests/ConformanceRunner"
        ),
        .testTarget(
            name: "OfflineODataTests",
            dependencies: ["OfflineOData", "OfflineODataFoundation"]
        ),
    ]
)
