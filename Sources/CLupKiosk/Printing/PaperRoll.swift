import CLupCore
import CLupPrinting
import CLupProtocol
import Foundation
import Logging

/// The paper on the printer's roll: counted as tickets and test prints come out, from the
/// moment the technician says a new roll is in (`clupctl paper new-roll`, audited), and
/// kept in `paper-roll.json` in the state directory so that a restart keeps the count.
/// With the profile's roll and print lengths, the count says about how many tickets are
/// left; a printer whose near-end sensor reaches CUPS (IPP `media-low`) has the last word.
///
/// A prediction, not a record: a print counted but not yet saved when the power went is
/// lost from the count (the file is written, synced and renamed after each print).
final class PaperRoll {
    /// What the file keeps.
    struct Count: Codable, Equatable {
        var changedAt: Date?
        var changedBy: String?
        var tickets = 0
        var tests = 0
    }

    /// What a print took from the roll.
    enum Use {
        case ticket, test
    }

    static let fileName = "paper-roll.json"
    private let path: String
    private let logger: Logger
    private(set) var count: Count

    init(directory: String, logger: Logger) {
        path = directory + "/" + Self.fileName
        self.logger = logger
        count = Count()
        guard let data = Self.read(path) else { return }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let read = try decoder.decode(Count.self, from: data.prefix(4096))
            guard read.tickets >= 0, read.tests >= 0 else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a count below zero")) }
            count = read
        } catch {
            // Never a reason not to start: the count begins again, and says it does not know.
            logger.warning("the paper count could not be read; it starts again (say clupctl paper new-roll at the next roll)",
                           metadata: ["file": "\(path)", "error": "\(error)"])
        }
    }

    /// At most 4 KiB of the file at `path`, never through a symbolic link; nil if none.
    private static func read(_ path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Data(buffer[0..<count]) : nil
    }

    /// A print came out: counted, and the count kept (a count not kept is logged: a print
    /// is never held up for it).
    func printed(_ use: Use) {
        switch use {
        case .ticket: count.tickets = count.tickets.addingSaturating(1)
        case .test: count.tests = count.tests.addingSaturating(1)
        }
        do {
            try save(count)
        } catch {
            logger.error("the paper count could not be saved", metadata: ["error": "\(error)"])
        }
    }

    /// A full roll is in: the count starts again, kept before it is said (a count that
    /// could not be kept is refused, not shown as done).
    func newRoll(at date: Date, by who: String) throws(CodedError) {
        let fresh = Count(changedAt: date, changedBy: who, tickets: 0, tests: 0)
        try save(fresh)
        count = fresh
    }

    private func save(_ count: Count) throws(CodedError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(count) else { throw CodedError(.paperCountUnsaved, "the paper count could not be written") }
        do {
            try DurableFile.write(data, to: path, mode: 0o640)
        } catch {
            throw CodedError(.paperCountUnsaved, "the paper count could not be saved in \(path): \(error.message)")
        }
    }

    /// The report for `roll` (the profile's; nil: no lengths known) and the printer as
    /// CUPS last said (its state reasons, whether it answered at all).
    func report(roll: PrinterProfile.Roll?, printer: PrinterReport) -> PaperReport {
        let reasons = printer.reasons
        // What the printer says wins where it says something: no paper, or nearly none.
        let out = reasons.contains { reason in TotemHealth.paperOutReasons.contains(reason) || reason.hasPrefix("media-empty") }
        let sensorLow = out || reasons.contains { $0 == "media-low" || $0.hasPrefix("media-low-") }
        // Its silence means "there is paper" only from a printer with a sensor that answered.
        let answered = printer.checkedSecondsAgo != nil && printer.state != "unreachable"
        var left: Int?
        if let roll, count.changedAt != nil {
            let (tickets, overflowT) = count.tickets.multipliedReportingOverflow(by: roll.ticketMillimetres)
            let (tests, overflowS) = count.tests.multipliedReportingOverflow(by: roll.testMillimetres)
            let used = overflowT || overflowS ? Int.max : tickets.addingSaturating(tests)
            left = max(0, roll.lengthMillimetres - min(used, roll.lengthMillimetres)) / roll.ticketMillimetres
        }
        let since = count.changedAt.map { "since the roll was put in \($0.formatted(.iso8601)) by \(count.changedBy ?? "?")" }
            ?? "since clupd has counted (no new roll said yet: clupctl paper new-roll)"
        let printed = "\(count.tickets) tickets and \(count.tests) test prints \(since)"
        let low: Bool
        let source: String
        let detail: String
        if sensorLow || (roll?.nearEndSensor == true && answered) {
            // The printer's word wins: low when it says so; not low when its sensor does not.
            (low, source) = (sensorLow, "sensor")
            detail = (out ? "the printer says it has no paper" : sensorLow ? "the printer's near-end sensor says the roll is nearly out"
                        : "the printer's near-end sensor says there is paper")
                + (left.map { "; about \($0) tickets left by the count" } ?? "") + "; \(printed)"
        } else if let roll, let left {
            (low, source) = (left <= roll.lowTickets, "count")
            detail = "about \(left) tickets left (\(roll.lengthMillimetres / 1000) m roll, \(roll.ticketMillimetres) mm a ticket); \(printed)"
        } else {
            (low, source) = (false, "unknown")
            detail = (roll == nil ? "the printer's profile gives no roll length" : "the roll's start is not known") + "; \(printed)"
        }
        return PaperReport(rollChangedAt: count.changedAt, changedBy: count.changedBy, ticketsPrinted: count.tickets,
                           testsPrinted: count.tests, ticketsLeft: left, low: low, source: source, detail: detail)
    }
}
