// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "clup-totem",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "clupd", targets: ["clupd"]),
        .executable(name: "clupctl", targets: ["clupctl"]),
        .executable(name: "clup-hub", targets: ["clup-hub"]),
        .executable(name: "clup-release", targets: ["clup-release"]),
        .executable(name: "clup-speak", targets: ["clup-speak"]),
        // For the libFuzzer targets in Fuzz/, which build against these modules.
        .library(name: "CLupCore", targets: ["CLupCore"]),
        .library(name: "CLupHardware", targets: ["CLupHardware"]),
        .library(name: "CLupProtocol", targets: ["CLupProtocol"]),
        .library(name: "CLupIPP", targets: ["CLupIPP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        // The hub: HTTP(S) server, PostgreSQL client, its certificates; the totem's HTTPS client.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // The hub's SIGTERM: a bounded drain, then cancellation.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The managers' passwords (bcrypt).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        // Imported directly by the hub: HTTP's types (Hummingbird's requests), DER (its CA).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // Thin system-library targets: one per C library, nothing else in them.
        .systemLibrary(name: "CCUPS", path: "Sources/CCUPS"),
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // clupctl's shell: line editing, history and completion (BSD libedit's readline API).
        .systemLibrary(name: "CEditLine", path: "Sources/CEditLine", pkgConfig: "libedit",
                       providers: [.apt(["libedit-dev"])]),
        .systemLibrary(name: "CQRencode", path: "Sources/CQRencode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CUSB", path: "Sources/CUSB", pkgConfig: "libusb-1.0",
                       providers: [.apt(["libusb-1.0-0-dev"])]),
        // cairo draws; Pango lays text out on it (shaping, font fallback, line breaking).
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "pangocairo",
                       providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),
        .systemLibrary(name: "CGPIOD", path: "Sources/CGPIOD", pkgConfig: "libgpiod",
                       providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(name: "CEspeak", path: "Sources/CEspeak", pkgConfig: "espeak-ng",
                       providers: [.apt(["libespeak-ng-dev"])]),
        // Speech, in a process of its own for each utterance: clupd does not link espeak-ng,
        // which brings PulseAudio, libsndfile and five codecs (SpeechSynthesizer runs it).
        .executableTarget(name: "clup-speak", dependencies: ["CEspeak"],
                          cSettings: [.define("_FORTIFY_SOURCE", to: "2", .when(configuration: .release))]),
        .systemLibrary(name: "CALSA", path: "Sources/CALSA", pkgConfig: "alsa",
                       providers: [.apt(["libasound2-dev"])]),
        // Keyboard layouts (xkb-data) for wedge scanners, dead keys through its compose tables.
        .systemLibrary(name: "CXKBCommon", path: "Sources/CXKBCommon", pkgConfig: "xkbcommon",
                       providers: [.apt(["libxkbcommon-dev"])]),

        // CLDR plural rules from the ICU Foundation links in, which ships no headers.
        .target(name: "CPlurals", linkerSettings: [.linkedLibrary("_FoundationICU")]),
        // zlib, for the simulated display's quick PNG files.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The evdev ioctls, wrapped for Swift (ioctl is variadic).
        .target(name: "CEvdev"),
        // The framebuffer ioctls, likewise.
        .target(name: "CFramebuffer"),
        // Screens through the kernel's mode setting (DRM/KMS): libdrm, and what Swift cannot
        // call of it (the dumb-buffer ioctls, page-flip events, uevents).
        .systemLibrary(name: "CLibDRM", path: "Sources/CLibDRM", pkgConfig: "libdrm",
                       providers: [.apt(["libdrm-dev"])]),
        .target(name: "CDRM", dependencies: ["CLibDRM"]),
        .target(name: "CLupCore", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            // The log handler clupd and the hub share (LineSafeLogHandler).
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The TOML subset both configurations are written in, and tables of keys declared once.
        .target(name: "CLupConfig", dependencies: ["CLupCore"]),
        .target(name: "CLupDrawing", dependencies: ["CLupCore", "CCairo", "CZlib"]),
        .target(name: "CLupStore", dependencies: [
            "CLupCore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .target(name: "CLupHardware", dependencies: [
            "CLupCore", "CLupDrawing", "CUSB", "CEvdev", "CFramebuffer", "CDRM", "CGPIOD", "CALSA", "CXKBCommon",
        ]),
        // QR symbols (libqrencode): the tickets' and the website's.
        .target(name: "CLupQR", dependencies: ["CLupCore", "CQRencode"]),
        // IPP over HTTP/1.1, as cupsd speaks it: what clupd asks of CUPS, without libcups.
        .target(name: "CLupIPP"),
        .target(name: "CLupPrinting", dependencies: ["CLupCore", "CLupDrawing", "CLupQR", "CLupIPP"]),
        // The control socket's requests, replies and client: all clupctl needs of clupd;
        // and the hub's wire: enrolment, signed requests, event batches.
        .target(name: "CLupProtocol", dependencies: [
            "CLupCore", .product(name: "Crypto", package: "swift-crypto"),
            // scrypt, for the employees' PINs (`PinHash`).
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        .target(name: "CLupKiosk", dependencies: [
            "CLupCore", "CLupConfig", "CLupProtocol", "CLupStore", "CLupHardware", "CLupPrinting", "CLupDrawing", "CMalloc", "CPlurals",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ], resources: [
            // The texts of the screens, the voice and the ticket, one catalog per language,
            // compiled into clupd (`TextCatalog`): nothing to find on disk at run time.
            .embedInCode("Texts/it.json"), .embedInCode("Texts/en.json"), .embedInCode("Texts/fr.json"),
            .embedInCode("Texts/de.json"), .embedInCode("Texts/es.json"),
        ]),
        .target(name: "CLupHub", dependencies: [
            "CLupCore", "CLupConfig", "CLupProtocol", "CLupQR",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ], resources: [
            // docs/runbooks.md (a link to it), served at /runbooks: the alert rules' runbook_url.
            .embedInCode("Fleet/Runbooks/runbooks.md"),
        ]),
        .executableTarget(name: "clup-hub", dependencies: [
            "CLupHub", "CLupProtocol", "CLupCore", "CLupConfig", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "clupd", dependencies: [
            "CLupKiosk", "CLupProtocol", "CLupHardware", "CLupStore", "CLupCore", "ClupctlCommand", "CICUData",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The release manager's signing tool (release manifests), run away from the hub.
        .executableTarget(name: "clup-release", dependencies: [
            "CLupProtocol", "CLupCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        .executableTarget(name: "clup-bench", dependencies: [
            "CLupCore", "CLupStore", "CLupPrinting", "CLupQR", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // ICU's data for clupd and clupctl: the items a totem can ask for, 5.7 MB, linked in
        // place of the 34 MB the toolchain's Foundation carries (scripts/icu-subset writes
        // it). Only a static build (--static-swift-stdlib: the package's, the bench's) takes
        // it; a development build's shared Foundation keeps its own whole set.
        .target(name: "CICUData", exclude: ["icudt-subset.dat"], cSettings: [.headerSearchPath(".")]),
        // clupctl's commands and shell: the `clupctl` executable of a development build, and
        // clupd when started as `clupctl` (the package links /usr/bin/clupctl to clupd).
        .target(name: "ClupctlCommand", dependencies: [
            "CLupProtocol", "CLupCore", "CEditLine",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "clupctl", dependencies: ["ClupctlCommand", "CICUData"]),

        // Random walks through the store's days and an independent model of the rules,
        // shared by the core's and the store's tests.
        .target(name: "QueueSimulation", dependencies: ["CLupCore", .product(name: "Crypto", package: "swift-crypto")],
                path: "Tests/QueueSimulation"),
        .testTarget(name: "CLupCoreTests", dependencies: ["CLupCore", "QueueSimulation", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "CLupStoreTests", dependencies: [
            "CLupStore", "CLupCore", "QueueSimulation", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "CLupPrintingTests", dependencies: [
            // libcups in the tests only: an independent client to check what clupd's sends.
            "CLupPrinting", "CLupDrawing", "CLupQR", "CLupCore", "CLupIPP", "CCUPS", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "CLupHardwareTests", dependencies: ["CLupHardware", "CLupCore", "CLupDrawing", "CCairo"]),
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        .testTarget(name: "CLupKioskTests", dependencies: [
            "CLupKiosk", "CLupConfig", "CLupProtocol", "CTestSupport", "CLupCore", "CLupDrawing", "CLupHardware", "CLupPrinting",
            "CLupStore", .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // The hub in process: its router through HummingbirdTesting, against a private PostgreSQL.
        .testTarget(name: "CLupHubTests", dependencies: [
            "CLupHub", "CLupProtocol", "CLupCore", "CLupConfig", "QueueSimulation",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "CLupConfigTests", dependencies: ["CLupConfig"]),
        // Logging: clupd's log lines, as LineSafeLogHandler writes them, through `clupctl logs`' filter.
        .testTarget(name: "clupctlTests", dependencies: [
            "ClupctlCommand", "CLupCore", "CLupProtocol", .product(name: "Logging", package: "swift-log"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
    ]
)

// Every module a file imports is a declared dependency above. MemberImportVisibility
// (SE-0444) stays off: Swift 6.3 on Linux gives a libc type (struct stat, struct timeval)
// to whichever C module's header included it first (CNIOLinux, CGPIOD), so the same file
// built in debug and failed in release ("missing import of defining module 'CGPIOD'").
// The imports it asked for are kept; docs/notes/swift-server-pitfalls.md says more.
