@testable import CLupHub
import NIOCore
import XCTest

/// Whose network a request came from: the peer, or behind the chain's own proxies the
/// address they say they forwarded for, and never what a client writes about itself.
final class ClientAddressTests: XCTestCase {
    let proxies = try! TrustedProxies.parse(["10.0.0.5", "10.1.0.0/16", "fd00::/8"]).get()

    func client(peer: String, forwardedFor: String? = nil) throws -> String? {
        ClientAddress.of(peer: try SocketAddress(ipAddress: peer, port: 443), forwardedFor: forwardedFor, trusting: proxies)?.description
    }

    func test_theAddressAProxyOfTheChainForwardedForIsTheClient() throws {
        XCTAssertEqual(try client(peer: "10.0.0.5", forwardedFor: "203.0.113.9"), "203.0.113.9")
        // Proxies in a row: the right-most address no proxy of the chain holds.
        XCTAssertEqual(try client(peer: "10.0.0.5", forwardedFor: "198.51.100.1, 203.0.113.9, 10.1.4.4"), "203.0.113.9")
        // Only proxies: the first of them, as far as the chain can tell.
        XCTAssertEqual(try client(peer: "10.0.0.5", forwardedFor: "10.1.0.1"), "10.1.0.1")
    }

    func test_anyoneElsesForwardedForIsTheirOwnSayAndIgnored() throws {
        XCTAssertEqual(try client(peer: "203.0.113.9", forwardedFor: "198.51.100.1"), "203.0.113.9")
        XCTAssertEqual(try client(peer: "10.2.0.1", forwardedFor: "198.51.100.1"), "10.2.0.1", "10.2/16 is no proxy of the chain")
    }

    func test_aHopThatIsNoAddressStopsAtTheProxyThatWroteIt() throws {
        XCTAssertEqual(try client(peer: "10.0.0.5", forwardedFor: "203.0.113.9, not-an-address"), "10.0.0.5")
        XCTAssertEqual(try client(peer: "10.0.0.5", forwardedFor: String(repeating: "1.2.3.4, ", count: 400)), "10.0.0.5",
                       "a header longer than any chain of proxies is no one's")
    }

    func test_anIPv6SlashSixtyFourIsOneClientAndAMappedIPv4IsItsIPv4() throws {
        XCTAssertEqual(try client(peer: "2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64")
        XCTAssertEqual(ClientAddress("2001:db8:1:2::1"), ClientAddress("2001:db8:1:2:ffff::7"))
        XCTAssertNotEqual(ClientAddress("2001:db8:1:2::1"), ClientAddress("2001:db8:1:3::1"))
        XCTAssertEqual(try client(peer: "::ffff:203.0.113.9"), "203.0.113.9")
        XCTAssertEqual(try client(peer: "fd00::1", forwardedFor: "2001:db8:9:9::5"), "2001:db8:9:9::/64")
    }

    func test_aProxyThatIsNoAddressOrNetworkIsRefusedByName() {
        for bad in ["10.0.0.0/33", "10.0.0", "fd00::/129", "example.com", "10.0.0.1/", "/8"] {
            guard case let .failure(refused) = TrustedProxies.parse(["10.0.0.5", bad]) else { return XCTFail(bad) }
            XCTAssertEqual(refused.entry, bad)
        }
    }
}
