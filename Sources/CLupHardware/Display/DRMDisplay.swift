import CDRM
import CLupCore
import CLupDrawing
import Foundation

/// The screen through the kernel's mode setting (DRM/KMS), as current kernels drive panels
/// (fbdev is only their compatibility layer): a connector of a card in its preferred mode,
/// two dumb buffers, each frame drawn into the one not on screen and flipped to at the next
/// vertical blank (the panel never shows a frame half drawn), DPMS off while the totem
/// sleeps. A connector unplugged makes the display missing; plugged again (in another mode,
/// if it likes), the screen comes back.
public final class DRMDisplay: Display {
    public let card: DRMCard
    /// The connector by the kernel's name ("HDMI-A-1", "DSI-1", "Virtual-2"); nil: the
    /// card's first connected one that no other display of the card took.
    public let connectorName: String?
    public let rotation: DisplayRotation
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var physicalSizeMM: (width: Double, height: Double)?
    public private(set) var isAwake = false
    public private(set) var framesShown = 0
    /// Page flips completed, and how long they took from the ask to their vblank (the
    /// last one, and all of them added up).
    public private(set) var flips = 0
    public private(set) var lastFlipSeconds: Double?
    private var flipSecondsTotal = 0.0
    public var onHealthChange: (() -> Void)?
    private var output: Output?
    /// The frame shown last (kept for the console's framebuffer when clupd stops).
    private var lastFrame: Canvas?
    /// The connector shown on last (for saying which one went).
    private var lastConnector: String?
    private var problem: String?
    /// The connector in use reads disconnected: set by `checkConnector`, cleared only by
    /// `prepared()` once it took the connector again (in its mode of now).
    private var disconnected = false
    /// When the connectors were last probed while none could be used (CLOCK_MONOTONIC
    /// seconds): a probe reads monitors' EDID, so it is done at most every `probeSeconds`.
    private var lastProbe = -Double.infinity
    static let probeSeconds = 5.0
    /// When (CLOCK_MONOTONIC seconds) the flip not yet seen done was asked for: the buffer
    /// it leaves is not to be drawn into until it is.
    private var flipAskedAt: Double?
    /// The number of the flip asked last: an event of an earlier one (given up on, then
    /// arriving late) is not taken for it.
    private var flipNumber: UInt32 = 0

    /// The connector in use, its CRTC and mode, and the two buffers (`front` is the one on
    /// screen, or about to be once the pending flip is done).
    private struct Output {
        let connector: UInt32
        let name: String
        let crtc: UInt32
        let mode: (width: Int, height: Int, refresh: Int)
        var buffers: [clup_drm_buffer]
        /// Buffer 1 at first: nothing of ours is on screen, the first frame goes into 0.
        var front = 1
        /// Whether the CRTC shows one of our buffers (a mode was set since it was taken).
        var modeSet = false
    }

    public init(card: DRMCard, connector: String?, rotation: DisplayRotation, fallbackWidth: Int, fallbackHeight: Int) {
        self.card = card
        self.connectorName = connector
        self.rotation = rotation
        (width, height) = (fallbackWidth, fallbackHeight)
        card.register(self, onChange: { [weak self] in self?.connectorsChanged() }, onLost: { [weak self] in self?.cardLost() })
        if (try? prepared()) != nil, let output {
            (width, height) = rotation.drawnSize(width: output.mode.width, height: output.mode.height)
        }
    }

    deinit { releaseOutput() }

    private var label: String { "\(card.path)\(output.map { " \($0.name)" } ?? connectorName.map { " \($0)" } ?? "")" }

    public var health: DeviceHealth {
        if output != nil { checkConnector() }
        if let problem = problem ?? (disconnected ? "\(output?.name ?? "the connector") is disconnected" : nil) {
            return DeviceHealth(role: "display", backend: "drm", state: .missing, detail: "\(label): \(problem)")
        }
        guard let output else {
            return DeviceHealth(role: "display", backend: "drm", state: .missing, detail: "\(label): not set up")
        }
        let drawn = rotation.drawnSize(width: output.mode.width, height: output.mode.height)
        if drawn.width != width || drawn.height != height {
            return DeviceHealth(role: "display", backend: "drm", state: .fault,
                                detail: "\(label) is \(drawn.width)x\(drawn.height), the screens are still drawn at \(width)x\(height)")
        }
        let turned = rotation == .none ? "" : ", turned \(rotation.rawValue)°"
        let flipTime = lastFlipSeconds.map {
            String(format: " (last %.1f ms, mean %.1f ms, ask to vblank)", $0 * 1000, flipSecondsTotal * 1000 / Double(max(1, flips)))
        } ?? ""
        return DeviceHealth(role: "display", backend: "drm", state: .ok,
                            detail: "\(label) \(output.mode.width)x\(output.mode.height)@\(output.mode.refresh)\(turned), "
                                + "\(card.driver), \(isAwake ? "awake" : "asleep"), \(framesShown) frames, \(flips) flips\(flipTime)")
    }

    public func show(_ frame: Canvas) throws {
        // The flip asked last first: given up on, it has the mode set again (below).
        waitForFlip()
        var output = try prepared()
        guard Int(frame.width) == width, Int(frame.height) == height,
              rotation.drawnSize(width: output.mode.width, height: output.mode.height) == (width, height) else {
            throw FramebufferDisplay.DisplayError(
                message: "a frame of \(Int(frame.width))x\(Int(frame.height)) for \(label) in \(output.mode.width)x\(output.mode.height) "
                    + "(it changed; the screens are laid out again)")
        }
        // Drawn into the buffer not on screen (nor pending); the first frame after taking the
        // connector or waking sets the mode (which lights the CRTC), the others flip.
        let next = 1 - output.front
        let format = FramebufferFormat.xrgb8888(width: output.mode.width, height: output.mode.height)
            .with(lineLength: Int(output.buffers[next].pitch))
        guard let memory = output.buffers[next].memory else { throw fault("a buffer is not mapped") }
        format.draw(frame, into: memory, rotation: rotation)
        let fd = card.fd
        let framebuffer = output.buffers[next].framebuffer
        if output.modeSet && isAwake {
            let asked = Self.monotonic()
            flipNumber &+= 1
            let user = UInt64(flipNumber) << 32 | UInt64(output.crtc)
            var flipped = clup_drm_page_flip(fd, output.crtc, framebuffer, user)
            if flipped != 0 && errno == EBUSY {
                // A flip still pending that was given up on: read the card once more, ask again.
                card.readFlips(timeout: 0.1)
                flipped = clup_drm_page_flip(fd, output.crtc, framebuffer, user)
            }
            if flipped == 0 {
                flipAskedAt = asked
            } else if clup_drm_set_mode(fd, output.crtc, output.connector, framebuffer, UInt32(output.mode.width),
                                        UInt32(output.mode.height), UInt32(output.mode.refresh)) != 0 {
                throw lost("cannot show a frame: \(Self.reason(errno))")
            }
        } else {
            guard clup_drm_set_mode(fd, output.crtc, output.connector, framebuffer, UInt32(output.mode.width),
                                    UInt32(output.mode.height), UInt32(output.mode.refresh)) == 0 else {
                throw lost("cannot set \(output.mode.width)x\(output.mode.height): \(Self.reason(errno))")
            }
            // A mode set lights the CRTC; the connector's own DPMS is turned on with it.
            _ = clup_drm_set_dpms(fd, output.connector, 1)
            output.modeSet = true
        }
        output.front = next
        self.output = output
        lastFrame = frame
        isAwake = true
        framesShown += 1
    }

    public func sleep() throws {
        waitForFlip()
        let output = try prepared()
        // DPMS off turns the CRTC and the panel off; a connector without DPMS is shown black.
        if clup_drm_set_dpms(card.fd, output.connector, 0) != 0 {
            if errno != ENOENT { throw lost("cannot turn the panel off: \(Self.reason(errno))") }
            for buffer in output.buffers { if let memory = buffer.memory { memset(memory, 0, Int(buffer.size)) } }
        }
        isAwake = false
    }

    public func noticeSizeChange() -> Bool {
        guard let output = try? prepared() else { return false }
        let drawn = rotation.drawnSize(width: output.mode.width, height: output.mode.height)
        guard drawn != (width, height) else { return false }
        (width, height) = drawn
        return true
    }

    /// Waits until the last frame is on the panel, and leaves it on the card's fbdev
    /// emulation too: when clupd lets go of the card (it stops), the kernel shows its
    /// console's framebuffer again, which then holds the same picture ("out of order" while
    /// clupd is away) rather than a console.
    public func finishShowing() {
        waitForFlip()
        guard let lastFrame, let output, let console = consoleFramebuffer() else { return }
        let fbdev = FramebufferDisplay(path: console, fallbackWidth: output.mode.width, fallbackHeight: output.mode.height,
                                       rotation: rotation)
        guard fbdev.width == width, fbdev.height == height else { return }
        try? fbdev.show(lastFrame)
    }

    /// The card's fbdev emulation (`/dev/fbN` whose device is the card's), where it has one.
    private func consoleFramebuffer() -> String? {
        let card = URL(fileURLWithPath: self.card.path).lastPathComponent
        let graphics = "/sys/class/drm/\(card)/device/graphics"
        guard card.hasPrefix("card"), let entries = try? FileManager.default.contentsOfDirectory(atPath: graphics) else { return nil }
        return entries.filter { $0.hasPrefix("fb") }.sorted().first.map { "/dev/\($0)" }
    }

    /// Waits for the flip asked last, whose event the loop has usually read already
    /// (bounded: a card that never answers is not waited on for ever).
    private func waitForFlip() {
        let deadline = Self.monotonic() + 1
        while flipAskedAt != nil {
            let left = deadline - Self.monotonic()
            guard left > 0, card.readFlips(timeout: left) else { break }
        }
        if flipAskedAt != nil {
            // Given up on: which buffer is on screen is not known; the next frame sets the
            // mode (a blocking commit) rather than flip.
            flipAskedAt = nil
            output?.modeSet = false
        }
    }

    /// The card says flip `number` of our CRTC is done, at the vblank of `when`.
    private func flipDone(_ number: UInt32, at when: Double) {
        guard number == flipNumber, let asked = flipAskedAt else { return }
        flipAskedAt = nil
        flips += 1
        let took = max(0, when - asked)
        lastFlipSeconds = took
        flipSecondsTotal += took
    }

    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    // MARK: The connector

    /// The connector in use with its buffers, taken (again) where it was not: after a start
    /// with the card absent, an unplug, or a mode of another size.
    private func prepared() throws(FramebufferDisplay.DisplayError) -> Output {
        if let output, problem == nil, !disconnected { return output }
        if let problem = problem ?? (disconnected ? "\(output?.name ?? "the connector") is disconnected" : nil),
           Self.monotonic() - lastProbe < Self.probeSeconds {
            throw FramebufferDisplay.DisplayError(message: "\(label): \(problem)")
        }
        lastProbe = Self.monotonic()
        // Looked at again at most once per call: an unplugged connector is probed (the
        // driver reads the monitor), so the kiosk's looks while it is missing find it back.
        let outputs: [clup_drm_output]
        do {
            outputs = try card.outputs(probe: true)
        } catch {
            releaseOutput()
            problem = card.problem ?? error.message
            throw error
        }
        let named = connectorName.map { name in outputs.filter { Self.name(of: $0) == name } }
        // An unnamed display leaves the connectors another display names; a connector whose
        // driver cannot tell whether something is plugged in is used when none says so.
        let free = (named ?? outputs.filter { !card.reserved.contains(Self.name(of: $0)) })
            .filter { $0.width > 0 && !card.isClaimedByAnother($0.connector_id, than: self) }
        let candidates = free.filter { $0.connected == 1 } + free.filter { $0.connected == -1 }
        guard let chosen = candidates.first else {
            releaseOutput()
            if let connectorName, named?.isEmpty ?? true {
                let known = outputs.map(Self.name(of:)).joined(separator: ", ")
                throw fault("no connector \(connectorName) (the card has \(known.isEmpty ? "none" : known))")
            }
            let unplugged = lastConnector.map { " (\($0) was unplugged)" } ?? ""
            throw fault(connectorName.map { "\($0) is disconnected" } ?? "no connected screen\(unplugged)")
        }
        let mode = (width: Int(chosen.width), height: Int(chosen.height), refresh: Int(chosen.refresh))
        if let output, output.connector == chosen.connector_id, output.mode == mode {
            (problem, disconnected) = (nil, false)
            var again = output
            again.modeSet = false
            self.output = again
            return again
        }
        releaseOutput()
        guard let crtc = card.claim(chosen, for: self) else { throw fault("no free CRTC can drive \(Self.name(of: chosen))") }
        card.onFlip(of: crtc) { [unowned self] in flipDone($0, at: $1) }
        var buffers: [clup_drm_buffer] = []
        for _ in 0..<2 {
            var buffer = clup_drm_buffer()
            guard clup_drm_buffer_create(card.fd, chosen.width, chosen.height, &buffer) == 0 else {
                let reason = String(cString: strerror(errno))
                for var made in buffers { clup_drm_buffer_destroy(card.fd, &made) }
                card.release(self)
                throw fault("cannot make a \(chosen.width)x\(chosen.height) buffer: \(reason)")
            }
            buffers.append(buffer)
        }
        let millimetres = [chosen.mm_width, chosen.mm_height].map(Double.init)
        let physical = millimetres.allSatisfy({ (20...2000).contains($0) }) ? (width: millimetres[0], height: millimetres[1]) : nil
        physicalSizeMM = rotation.turned(physical)
        let output = Output(connector: chosen.connector_id, name: Self.name(of: chosen), crtc: crtc, mode: mode, buffers: buffers)
        lastConnector = output.name
        self.output = output
        (problem, disconnected) = (nil, false)
        return output
    }

    /// Whether the connector in use is still connected, as the kernel last knew (no probe).
    private func checkConnector() {
        guard let output else { return }
        guard let outputs = try? card.outputs(probe: false) else {
            problem = card.problem ?? "the card went away"
            return
        }
        // Gone from the card's list (a DisplayPort hub's connector) is disconnected too.
        let current = outputs.first { $0.connector_id == output.connector }
        if (current == nil || current?.connected == 0) && !disconnected {
            disconnected = true
            self.output?.modeSet = false
        }
    }

    /// A connector was plugged or unplugged somewhere on the card (the kernel said so).
    private func connectorsChanged() {
        let before = usable
        if output != nil { checkConnector() }
        if output == nil || disconnected {
            lastProbe = -.infinity  // the kernel said something changed: look now
            _ = try? prepared()
        }
        if before != usable { onHealthChange?() }
    }

    /// Whether a connector is taken and plugged in (read without looking at the card).
    private var usable: Bool { output != nil && problem == nil && !disconnected }

    /// The card's file was closed (the card went away): its buffers went with it; their
    /// mappings are let go, and nothing is asked of the new file about them.
    private func cardLost() {
        guard var output else { return }
        for index in output.buffers.indices {
            if let memory = output.buffers[index].memory { munmap(memory, Int(output.buffers[index].size)) }
            output.buffers[index] = clup_drm_buffer()
        }
        card.release(self)
        self.output = nil
        flipAskedAt = nil
        problem = "the card went away"
    }

    /// Why a mode setting call failed, in words: EACCES is another program holding the card.
    static func reason(_ code: Int32) -> String {
        code == EACCES || code == EPERM
            ? "another program is the card's master (a desktop, a splash screen): clupd must be alone on it"
            : String(cString: strerror(code))
    }

    private func releaseOutput() {
        guard var output else { return }
        if card.fd >= 0 { for index in output.buffers.indices { clup_drm_buffer_destroy(card.fd, &output.buffers[index]) } }
        card.release(self)
        self.output = nil
        flipAskedAt = nil
    }

    private func fault(_ reason: String) -> FramebufferDisplay.DisplayError {
        problem = reason
        return FramebufferDisplay.DisplayError(message: "\(label): \(reason)")
    }

    /// The output is to be taken again at the next frame (the card or the connector failed).
    private func lost(_ reason: String) -> FramebufferDisplay.DisplayError {
        let error = fault(reason)
        output?.modeSet = false
        return error
    }

    static func name(of output: clup_drm_output) -> String {
        withUnsafeBytes(of: output.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
