import CLupCore
import CLupDrawing
import CLupHardware
@testable import CLupKiosk
import CLupPrinting
import CLupStore
import Crypto
import Foundation
import Logging
import Synchronization
import XCTest

/// A printer that keeps what it is sent and ends each job when the test says.
final class FakePrinter: TicketPrinter {
    struct Job {
        var report: QueuedJob
        let document: Data
        let format: String
    }

    let queue = "fake"
    private let state = Mutex<(jobs: [Int: Job], reasons: [String], refusing: PrintError?)>(([:], [], nil))

    var jobs: [Job] { state.withLock { $0.jobs.values.sorted { $0.report.id < $1.report.id } } }

    /// The printer's own state reasons from now on (`media-empty-error`).
    func setReasons(_ reasons: [String]) { state.withLock { $0.reasons = reasons } }

    /// Refuses every job from now on (nil: takes them again).
    func refuse(with error: PrintError?) { state.withLock { $0.refusing = error } }

    /// Ends job `id` as `state`.
    func end(_ id: Int, as jobState: JobState, reasons: [String] = []) {
        state.withLock { state in
            guard let job = state.jobs[id] else { return }
            state.jobs[id]?.report = QueuedJob(id: id, name: job.report.name, state: jobState, reasons: reasons, documents: 1)
        }
    }

    func printFile(_ path: String, title: String, format: String) throws(PrintError) -> Int {
        guard let document = FileManager.default.contents(atPath: path) else { throw .documentFailed("cannot read \(path)") }
        return try state.withLock { state throws(PrintError) in
            if let refusing = state.refusing { throw refusing }
            let id = state.jobs.count + 1
            state.jobs[id] = Job(report: QueuedJob(id: id, name: title, state: .processing, reasons: [], documents: 1),
                                 document: document, format: format)
            return id
        }
    }

    func job(_ id: Int) throws(PrintError) -> QueuedJob {
        guard let job = state.withLock({ $0.jobs[id] }) else { throw .submitFailed("no job \(id)") }
        return job.report
    }

    func jobs(includingEnded: Bool) throws(PrintError) -> [QueuedJob] {
        jobs.map(\.report).filter { includingEnded || ![.completed, .aborted, .canceled].contains($0.state) }
    }

    func cancel(job id: Int) {
        state.withLock { state in
            guard let job = state.jobs[id], ![.completed, .aborted].contains(job.report.state) else { return }
            state.jobs[id]?.report = QueuedJob(id: id, name: job.report.name, state: .canceled, reasons: [], documents: 1)
        }
    }

    func status() throws(PrintError) -> PrinterStatus {
        let reasons = state.withLock { $0.reasons }
        return PrinterStatus(queue: queue, state: "idle", reasons: reasons, message: "", acceptingJobs: true)
    }
}

/// A display that keeps the frames it is shown.
final class MemoryDisplay: Display {
    private(set) var width: Int
    private(set) var height: Int
    private(set) var isAwake = false
    private(set) var frames = 0
    /// The last frame shown.
    private(set) var last: Canvas?
    /// A new size the "driver" switched to, taken up at the next look.
    var newMode: (width: Int, height: Int, millimetres: (width: Double, height: Double)?)?
    private(set) var physicalSizeMM: (width: Double, height: Double)?

    init(width: Int = 720, height: Int = 1280) {
        self.width = width
        self.height = height
    }

    var health: DeviceHealth { DeviceHealth(role: "display", backend: "memory", state: .ok, detail: "\(frames) frames") }

    func show(_ frame: Canvas) throws {
        frames += 1
        isAwake = true
        last = frame
    }

    func noticeSizeChange() -> Bool {
        guard let mode = newMode else { return false }
        (width, height, physicalSizeMM, newMode) = (mode.width, mode.height, mode.millimetres, nil)
        return true
    }

    func sleep() throws {
        isAwake = false
    }
}

/// A voice that keeps what it was asked to say.
final class RecordingVoice: Voice {
    private(set) var said: [String] = []
    /// How each was to be said.
    private(set) var styles: [SpeechStyle] = []
    private(set) var silenced = 0
    var health: DeviceHealth { DeviceHealth(role: "voice", backend: "memory", state: .ok, detail: "\(said.count) said") }
    var lastUtterance: String? { said.last }
    func say(_ text: String, language: String, style: SpeechStyle) {
        said.append(text)
        styles.append(style)
    }
    func silence() { silenced += 1 }
    private(set) var toHeadset = false
    func route(toHeadset: Bool) { self.toHeadset = toHeadset }
}

/// The kiosk in process: simulated devices, a fake printer, a manual clock and a real
/// database in a temporary folder. Time passes only when a test says.
final class KioskHarness {
    let clock = ManualClock(wall: Date(timeIntervalSince1970: 1_795_347_000))   // 2026-11-22 11:30 UTC
    let loop: EventLoop
    let printer = FakePrinter()
    let directory: URL
    let touchscreen = SimulatedTouchscreen(width: 720, height: 1280)
    let presence = SimulatedPresenceSensor()
    let turnstile = SimulatedTurnstile()
    let reader = SimulatedDoorReader(keymap: .us)
    let display = MemoryDisplay()
    let voice = RecordingVoice()
    let kiosk: Kiosk
    nonisolated(unsafe) static let key = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 3, count: 32))

    init(headset: HeadsetJack? = nil, callingBoard: Display? = nil, printerPort: PrinterPortWatch? = nil, _ configure: (inout KioskConfiguration) -> Void = { _ in }) throws {
        var config = KioskConfiguration()
        configure(&config)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-kiosk-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        loop = EventLoop(clock: clock)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let store = try TotemStore(path: directory.appendingPathComponent("clup.sqlite").path, deviceID: config.deviceID)
        let desk = try QueueDesk(store: store, rules: Kiosk.rules(config), loop: loop, clock: clock, logger: logger)
        let spooler = PrintSpooler(printer: printer, model: config.printer.model, timeout: config.printer.timeoutSeconds,
                                   spool: directory.path, loop: loop, clock: clock, logger: logger)
        kiosk = Kiosk(config: config,
                      devices: KioskDevices(display: display, touchscreen: touchscreen, presence: presence, turnstile: turnstile,
                                            reader: reader, voice: voice, headset: headset, callingBoard: callingBoard,
                                            printerPort: printerPort),
                      desk: desk, spooler: spooler, key: Self.key, runtime: KioskRuntime(loop: loop, clock: clock, logger: logger))
        kiosk.start()
        settle()
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Turns the loop until the workers have nothing left for it (a minute at most).
    func settle() {
        let deadline = Date().addingTimeInterval(60)
        loop.turn()
        while loop.hasPendingWork && Date() < deadline {
            usleep(200)
            loop.turn()
        }
    }

    /// Lets `seconds` pass, in steps of the spooler's looks, handling what falls due.
    func pass(_ seconds: Double) {
        var left = seconds
        while left > 0 {
            let step = min(left, PrintJob.lookInterval)
            clock.advance(step)
            left -= step
            settle()
        }
    }

    func approach() { if presence.set(present: true) { _ = kiosk.presenceChanged(true) } }
    func leave() { if presence.set(present: false) { _ = kiosk.presenceChanged(false) } }

    /// A tap on the "Get a ticket" button; the ticket's job reaches the printer.
    @discardableResult
    func takeTicket() throws -> TicketNumber {
        let button = try XCTUnwrap(kiosk.screens.geometry.buttons(on: .welcome).first { $0.action == .getTicket })
        let outcome = kiosk.touched(try touchscreen.tap(x: Int(button.x + button.width / 2), y: Int(button.y + button.height / 2)))
        settle()
        return try XCTUnwrap(outcome.ticket, outcome.sentence)
    }

    /// A tap in the middle of the button `action` of the screen shown, as the customer sees it.
    @discardableResult
    func press(_ action: Button.Action) throws -> KioskOutcome {
        let screen = kiosk.screens.flow.screen
        let button = try XCTUnwrap(kiosk.screens.geometry.buttons(on: screen, language: kiosk.screens.flow.language, largeText: kiosk.screens.flow.largeText)
            .first { $0.action == action }, "no \(action.name) on the \(screen.name) screen")
        let outcome = kiosk.touched(try touchscreen.tap(x: Int(button.x + button.width / 2), y: Int(button.y + button.height / 2)))
        settle()
        return outcome
    }

    func ticket(_ number: TicketNumber) -> Ticket? { kiosk.desk.day.tickets[number] }

    func state(_ number: TicketNumber) -> TicketState? { ticket(number)?.state }

    /// The printer finishes the newest job, and the kiosk sees it at its next look.
    func printerFinishesTheLastJob(as state: JobState = .completed, reasons: [String] = []) {
        guard let job = printer.jobs.last else { return XCTFail("nothing was printed") }
        printer.end(job.report.id, as: state, reasons: reasons)
        pass(PrintJob.lookInterval)
    }

    /// The ticket's code read at the door.
    func scan(_ number: TicketNumber) -> KioskOutcome {
        reader.scan(ticket(number)?.code ?? "").map(kiosk.read).last ?? KioskOutcome("nothing read")
    }
}
