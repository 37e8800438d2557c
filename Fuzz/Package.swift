// swift-tools-version: 6.1
// libFuzzer targets for the parsers that read what devices and people send us: a touch
// panel's event stream, the door reader's keys and serial lines, a scanned ticket code, and
// an event row read back from the totem's own database, a batch of events as the hub
// reads it, a release manifest as a hub sends it to the totem's update helper, and the print
// server's answers.
// Built with the fuzzer and AddressSanitizer by `scripts/fuzz`, which also runs them:
//   swift build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address
// Each target's main.swift hands its input function to libFuzzer's driver (CFuzzDriver).
import PackageDescription

let package = Package(
    name: "clup-fuzz",
    dependencies: [
        .package(name: "clup-totem", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .executableTarget(name: "FuzzTouchEvents", dependencies: ["CFuzzDriver", .product(name: "CLupHardware", package: "clup-totem")]),
        .executableTarget(name: "FuzzDoorReader", dependencies: ["CFuzzDriver", .product(name: "CLupHardware", package: "clup-totem")]),
        .executableTarget(name: "FuzzStoredEvent", dependencies: [
            "CFuzzDriver",
            .product(name: "CLupCore", package: "clup-totem"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .executableTarget(name: "FuzzEventBatch", dependencies: [
            "CFuzzDriver",
            .product(name: "CLupCore", package: "clup-totem"),
            .product(name: "CLupProtocol", package: "clup-totem"),
        ]),
        .executableTarget(name: "FuzzReleaseManifest", dependencies: [
            "CFuzzDriver",
            .product(name: "CLupCore", package: "clup-totem"),
            .product(name: "CLupProtocol", package: "clup-totem"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .executableTarget(name: "FuzzIPPAnswer", dependencies: ["CFuzzDriver", .product(name: "CLupIPP", package: "clup-totem")]),
        .executableTarget(name: "FuzzTicketCode", dependencies: [
            "CFuzzDriver",
            .product(name: "CLupCore", package: "clup-totem"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
    ]
)
