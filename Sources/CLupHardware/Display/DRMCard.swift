import CDRM
import CLupCore
import Foundation

/// A graphics card through the kernel's mode setting (`/dev/dri/card0`), shared by the
/// displays on its connectors (the customer's panel and the calling board above the door
/// may be two connectors of one card, and only one open file of a card may set modes: its
/// master). Opened again when it went away; page-flip events are read here, on the loop as
/// they come, and handed to the display whose CRTC flipped; the kernel's announcements of
/// connectors plugged and unplugged reach each display's `onHealthChange`.
public final class DRMCard {
    public let path: String
    let loop: DeviceRunLoop?
    private(set) var fd: Int32 = -1
    /// The driver's name ("virtio_gpu", "bochs-drm", "i915", …), once open.
    private(set) var driver = ""
    /// Why the card cannot be used, when it cannot.
    private(set) var problem: String?
    /// The displays on this card, each told when a connector changes, and when the card's
    /// file is closed (its buffers went with it).
    private var displays: [ObjectIdentifier: (changed: () -> Void, lost: () -> Void)] = [:]
    /// Connectors named by a display of the card: a display that takes the first connected
    /// one leaves them to it.
    private(set) var reserved: Set<String> = []
    /// Connectors and CRTCs taken by a display of this card.
    private var claimedConnectors: [UInt32: ObjectIdentifier] = [:]
    private var claimedCRTCs: [UInt32: ObjectIdentifier] = [:]
    /// Who is told when a CRTC's flip is done (by CRTC), with the flip's number (the high
    /// half of its user data, the low half being the CRTC) and the time of its vblank
    /// (CLOCK_MONOTONIC seconds).
    private var flipHandlers: [UInt32: (UInt32, Double) -> Void] = [:]
    /// The descriptor the loop watches for page-flip events.
    private var watchedFD: Int32 = -1
    private var ueventFD: Int32 = -1

    public init(path: String, loop: DeviceRunLoop?) {
        self.path = path
        self.loop = loop
    }

    deinit {
        if ueventFD >= 0 {
            loop?.unwatch(ueventFD)
            close(ueventFD)
        }
        if fd >= 0 {
            if watchedFD == fd { loop?.unwatch(fd) }
            close(fd)
        }
    }

    /// Follows the kernel's uevents (a connector plugged or unplugged, the card gone or
    /// back) on the loop; without them (no netlink in a sandbox) the kiosk's own looks at
    /// the display's health still notice, later.
    public func start() {
        guard ueventFD < 0, let loop else { return }
        let socket = clup_uevent_socket()
        guard socket >= 0 else { return }
        ueventFD = socket
        loop.watch(socket) { [unowned self] in
            let changed = clup_uevent_drm_changed(ueventFD)
            guard changed != 0 else { return }
            if changed < 0 {
                // The socket failed: the kiosk's looks at the displays go on; a new one is made.
                self.loop?.unwatch(ueventFD)
                close(ueventFD)
                ueventFD = -1
                start()
            }
            for display in displays.values { display.changed() }
        }
    }

    /// The open card, opened again if it was not or went away (ENODEV). Asking the driver's
    /// name (one ioctl) is how a card that went away is found before it is used, rather than
    /// by each caller's ioctl failing in its own way.
    func opened() throws(FramebufferDisplay.DisplayError) -> Int32 {
        if fd >= 0 {
            var name = [CChar](repeating: 0, count: 64)
            if clup_drm_driver(fd, &name, Int32(name.count)) == 0 { return fd }
            // Gone (ENODEV): the displays drop their buffers, which went with the file.
            for display in displays.values { display.lost() }
            if watchedFD == fd {
                loop?.unwatch(fd)
                watchedFD = -1
            }
            close(fd)
            fd = -1
        }
        let opened = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard opened >= 0 else { throw fail(String(cString: strerror(errno))) }
        var name = [CChar](repeating: 0, count: 64)
        guard clup_drm_driver(opened, &name, Int32(name.count)) == 0 else {
            let reason = errno == ENOTTY || errno == EINVAL ? "not a DRM card" : String(cString: strerror(errno))
            close(opened)
            throw fail(reason)
        }
        fd = opened
        driver = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        problem = nil
        if let loop {
            loop.watch(opened) { [unowned self] in readFlips(timeout: 0) }
            watchedFD = opened
        }
        return opened
    }

    private func fail(_ reason: String) -> FramebufferDisplay.DisplayError {
        problem = reason
        return FramebufferDisplay.DisplayError(message: "\(path): \(reason)")
    }

    /// The card's connectors as the driver knows them; `probe` asks the driver to look again.
    func outputs(probe: Bool) throws(FramebufferDisplay.DisplayError) -> [clup_drm_output] {
        let fd = try opened()
        var outputs = [clup_drm_output](repeating: clup_drm_output(), count: 16)
        let count = clup_drm_outputs(fd, &outputs, Int32(outputs.count), probe ? 1 : 0)
        guard count >= 0 else { throw fail("cannot list its connectors: \(String(cString: strerror(errno)))") }
        return Array(outputs.prefix(Int(count)))
    }

    func register(_ display: AnyObject, onChange: @escaping () -> Void, onLost: @escaping () -> Void) {
        displays[ObjectIdentifier(display)] = (onChange, onLost)
    }

    /// Keeps `connector` for the display that names it.
    public func reserve(_ connector: String) {
        reserved.insert(connector)
    }

    /// The first card (`/dev/dri/card0`…`card7`) with a connector, where there is one: on
    /// some boards card0 is a render-only GPU and the display controller is card1.
    public static func firstWithConnectors() -> String? {
        (0..<8).map { "/dev/dri/card\($0)" }.first { path in
            guard FileManager.default.fileExists(atPath: path) else { return false }
            let card = DRMCard(path: path, loop: nil)
            return ((try? card.outputs(probe: false)) ?? []).isEmpty == false
        }
    }

    /// Takes the connector and a CRTC that can drive it for `display`; nil when another
    /// display of the card holds the connector, or every CRTC that could drive it.
    func claim(_ output: clup_drm_output, for display: AnyObject) -> UInt32? {
        let owner = ObjectIdentifier(display)
        release(display)
        guard claimedConnectors[output.connector_id] == nil else { return nil }
        let candidates = (0..<32).filter { output.possible_crtcs & (1 << UInt32($0)) != 0 }.map { clup_drm_crtc_id(fd, Int32($0)) }
        let free = candidates.filter { $0 != 0 && claimedCRTCs[$0] == nil }
        guard let crtc = free.first(where: { $0 == output.current_crtc }) ?? free.first else { return nil }
        claimedConnectors[output.connector_id] = owner
        claimedCRTCs[crtc] = owner
        return crtc
    }

    /// Whether another display of the card holds the connector.
    func isClaimedByAnother(_ connector: UInt32, than display: AnyObject) -> Bool {
        claimedConnectors[connector].map { $0 != ObjectIdentifier(display) } ?? false
    }

    func release(_ display: AnyObject) {
        let owner = ObjectIdentifier(display)
        claimedConnectors = claimedConnectors.filter { $0.value != owner }
        for (crtc, holder) in claimedCRTCs where holder == owner { flipHandlers[crtc] = nil }
        claimedCRTCs = claimedCRTCs.filter { $0.value != owner }
    }

    /// Tells `handler` each time a flip of `crtc` is done.
    func onFlip(of crtc: UInt32, _ handler: @escaping (UInt32, Double) -> Void) {
        flipHandlers[crtc] = handler
    }

    /// Reads the card's events waiting (or coming within `timeout` seconds) and tells each
    /// flip to its CRTC's display. False when the card failed.
    @discardableResult
    func readFlips(timeout: Double) -> Bool {
        guard fd >= 0 else { return false }
        var crtcs = [UInt64](repeating: 0, count: 16)
        var times = [Double](repeating: 0, count: 16)
        let count = clup_drm_wait_flips(fd, Int32(max(0, min(1000, timeout * 1000))), &crtcs, &times, Int32(crtcs.count))
        if count < 0 { return errno == EINTR || errno == EAGAIN }
        for index in 0..<Int(count) {
            let user = crtcs[index]
            flipHandlers[UInt32(truncatingIfNeeded: user)]?(UInt32(truncatingIfNeeded: user >> 32), times[index])
        }
        return true
    }

}
