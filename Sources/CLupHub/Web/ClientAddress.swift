import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Who a browser's request came from, for the limits that keep one client from filling a
/// store's line: the network it came from, an IPv4 address or an IPv6 /64 (one household's,
/// or one phone's, prefix: a client changes the rest of it at will).
///
/// The peer of the connection is the client, unless it is one of the chain's reverse proxies
/// (`[hub] trusted_proxies`): then the client is the right-most address of `X-Forwarded-For`
/// that is not such a proxy, as each proxy appends the address it was reached from. An
/// `X-Forwarded-For` from any other peer is the client's own say, and ignored.
struct ClientAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or the first 8 bytes of an IPv6 address.
    let network: [UInt8]

    init?(_ text: some StringProtocol) {
        guard let bytes = Self.bytes(of: text) else { return nil }
        self.init(bytes: bytes)
    }

    init(bytes: [UInt8]) {
        network = bytes.count == 16 ? Array(bytes.prefix(8)) : bytes
    }

    var description: String {
        network.count == 4
            ? network.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 8, by: 2).map { String(UInt16(network[$0]) << 8 | UInt16(network[$0 + 1]), radix: 16) }
                .joined(separator: ":") + "::/64"
    }

    /// The client of a request that came from `peer` with `forwardedFor` (its
    /// `X-Forwarded-For`); nil when there is no peer (a request made in process).
    static func of(peer: SocketAddress?, forwardedFor: String?, trusting proxies: TrustedProxies) -> ClientAddress? {
        guard let peerText = peer?.ipAddress, let peerBytes = bytes(of: peerText) else { return nil }
        guard proxies.contains(peerBytes), let forwardedFor, forwardedFor.utf8.count <= maximumForwardedFor else {
            return ClientAddress(bytes: peerBytes)
        }
        var client = peerBytes
        for hop in forwardedFor.split(separator: ",").reversed().prefix(maximumHops) {
            // A hop a proxy of the chain wrote that is no address: the client is the proxy's own peer.
            guard let bytes = bytes(of: hop.trimmingCharacters(in: .whitespaces)) else { break }
            client = bytes
            if !proxies.contains(bytes) { break }
        }
        return ClientAddress(bytes: client)
    }

    static let maximumForwardedFor = 2048
    static let maximumHops = 16

    /// An address as 4 or 16 bytes (an IPv4-mapped IPv6 address as its IPv4 one).
    static func bytes(of text: some StringProtocol) -> [UInt8]? {
        let text = String(text)
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
        return bytes
    }
}

/// The chain's reverse proxies (`[hub] trusted_proxies`): addresses or networks in CIDR
/// notation ("10.0.0.5", "10.1.0.0/16", "fd00::/8").
struct TrustedProxies: Sendable {
    private let networks: [(bytes: [UInt8], prefix: Int)]

    static let none = TrustedProxies(checked: [])

    private init(checked networks: [(bytes: [UInt8], prefix: Int)]) {
        self.networks = networks
    }

    /// The proxies `entries` name, or the first entry that is neither an address nor a network.
    static func parse(_ entries: [String]) -> Result<TrustedProxies, Refused> {
        var networks: [(bytes: [UInt8], prefix: Int)] = []
        for entry in entries {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let bytes = ClientAddress.bytes(of: parts[0]) else { return .failure(Refused(entry: entry)) }
            let most = bytes.count * 8
            guard let prefix = parts.count == 2 ? Int(parts[1]) : most, (0...most).contains(prefix) else {
                return .failure(Refused(entry: entry))
            }
            networks.append((bytes, prefix))
        }
        return .success(TrustedProxies(checked: networks))
    }

    struct Refused: Error {
        let entry: String
    }

    func contains(_ address: [UInt8]) -> Bool {
        networks.contains { network in
            guard network.bytes.count == address.count else { return false }
            let whole = network.prefix / 8, rest = network.prefix % 8
            guard address.prefix(whole) == network.bytes.prefix(whole) else { return false }
            guard rest > 0 else { return true }
            let mask = UInt8(0xFF << (8 - rest) & 0xFF)
            return address[whole] & mask == network.bytes[whole] & mask
        }
    }
}
