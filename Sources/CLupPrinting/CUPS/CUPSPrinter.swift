import CLupCore
import CLupIPP
import Foundation
import Synchronization

/// A CUPS print queue, reached over IPP (`CLupIPP`, cupsd's own protocol, without libcups
/// and what it brings: GnuTLS, Kerberos, Avahi): submits documents, follows jobs and reads
/// the printer's state. Blocking; the kiosk calls it off its event loop.
///
/// The server is libcups's default (`CUPS_SERVER`, then `/run/cups/cups.sock`).
public struct CUPSPrinter: Sendable {
    public let queue: String
    private let client: IPPClient
    private let user: String

    public init(queue: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.queue = queue
        client = IPPClient(server: .fromEnvironment(environment["CUPS_SERVER"]))
        user = IPPClient.user(environment["CUPS_USER"])
    }

    var printerURI: String { "ipp://localhost/printers/\(queue)" }

    /// The largest document sent: a ticket is a few kilobytes.
    static let documentLimit = 16 * 1024 * 1024

    /// Sends the file at `path` as a one-document job, in one Print-Job request, and returns
    /// the job's id once cupsd has accepted it. The job is named `title`: after a restart the
    /// kiosk finds its jobs by their titles (`jobs(includingEnded:)`).
    public func printFile(_ path: String, title: String, format: String = "application/pdf") throws(PrintError) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .documentFailed("cannot read \(path)") }
        defer { try? handle.close() }
        let document: Data
        do {
            document = try handle.read(upToCount: Self.documentLimit + 1) ?? Data()
        } catch {
            throw .documentFailed("cannot read \(path): \(error)")
        }
        guard document.count <= Self.documentLimit else { throw .documentFailed("\(path) is larger than \(Self.documentLimit) bytes") }
        var request = newRequest(.printJob)
        request.add(.uri, "printer-uri", printerURI)
        request.add(.name, "requesting-user-name", user)
        request.add(.name, "job-name", title)
        request.add(.mimeMediaType, "document-format", format)
        let response = try send(request, to: "/printers/\(queue)", document: [UInt8](document))
        guard let id = response.first("job-id")?.values.first?.integer.map(Int.init), id > 0 else {
            throw .submitFailed("cupsd accepted the job but gave no job id")
        }
        return id
    }

    /// Cancels job `id`; a job that already ended is left as it is.
    public func cancel(job id: Int) {
        var request = newRequest(.cancelJob)
        request.add(.uri, "printer-uri", printerURI)
        request.add(.integer, "job-id", integer: Int32(clamping: id))
        request.add(.name, "requesting-user-name", user)
        _ = try? send(request, to: "/jobs/")
    }

    /// The queue's state, its reasons and whether it accepts jobs.
    public func status() throws(PrintError) -> PrinterStatus {
        var request = newRequest(.getPrinterAttributes)
        request.add(.uri, "printer-uri", printerURI)
        request.add(.name, "requesting-user-name", user)
        request.add(.keyword, "requested-attributes",
                    strings: ["printer-state", "printer-state-reasons", "printer-state-message", "printer-is-accepting-jobs"])
        let response = try send(request, to: "/")
        let state = response.first("printer-state")?.values.first?.integer ?? 0
        let stateName = switch state {
        case 3: "idle"
        case 4: "processing"
        case 5: "stopped"
        default: "unknown"
        }
        return PrinterStatus(
            queue: queue, state: stateName,
            reasons: Self.strings(response.first("printer-state-reasons")).filter { $0 != "none" },
            message: Self.strings(response.first("printer-state-message")).first ?? "",
            acceptingJobs: response.first("printer-is-accepting-jobs")?.values.first?.boolean ?? false)
    }

    /// The jobs cupsd holds for this queue: those not ended (pending, held, processing or
    /// stopped), and with `includingEnded` the newest `endedJobsListed` of those it keeps the
    /// history of.
    ///
    /// Ended jobs are asked for on their own, after the unfinished ones: a job that ends in
    /// between is then listed once as it was and once as it ended (the latter is kept), never
    /// in neither list. cupsd lists ended jobs newest first, so a ticket's job from just
    /// before a restart is among them.
    public func jobs(includingEnded: Bool = false) throws(PrintError) -> [QueuedJob] {
        let unfinished = try jobs(which: "not-completed")
        guard includingEnded else { return unfinished }
        let ended = try jobs(which: "completed", limit: Self.endedJobsListed)
        let endedIDs = Set(ended.map(\.id))
        return unfinished.filter { !endedIDs.contains($0.id) } + ended
    }

    /// How many ended jobs `jobs(includingEnded:)` lists: cupsd answers no more when it has
    /// to read each job's attributes from its file (as `listedAttributeNames` makes it).
    static let endedJobsListed = 500

    /// What Get-Jobs asks for. `job-uuid` is there for `job-name`: cupsd 2.4 unloads an ended
    /// job's attributes from memory a second or so after it ends, and answers a Get-Jobs for
    /// only the attributes it also keeps outside them (job-id, job-name, job-state, …) from
    /// memory, where a job submitted since cupsd started has no name (its add_job never
    /// keeps it there). Without its name, a ticket's job whose id clupd never recorded (killed
    /// in between) would be missed after a restart, and a printed ticket recorded as failed.
    /// An attribute only the job's file holds makes cupsd load the file, the name with it.
    static let listedAttributeNames = QueuedJob.attributeNames + ["job-uuid"]

    /// The queue's jobs that `which` (an IPP `which-jobs` keyword) selects, `limit` at most.
    private func jobs(which: String, limit: Int? = nil) throws(PrintError) -> [QueuedJob] {
        var request = newRequest(.getJobs)
        request.add(.uri, "printer-uri", printerURI)
        request.add(.name, "requesting-user-name", user)
        request.add(.keyword, "which-jobs", which)
        if let limit { request.add(.integer, "limit", integer: Int32(clamping: limit)) }
        request.add(.keyword, "requested-attributes", strings: Self.listedAttributeNames)
        // The answer lists each job's attributes in a group of its own.
        return try send(request, to: "/").groups(.job).compactMap(QueuedJob.init)
    }

    /// Job `id` as cupsd reports it, ended or not.
    public func job(_ id: Int) throws(PrintError) -> QueuedJob {
        var request = newRequest(.getJobAttributes)
        request.add(.uri, "printer-uri", printerURI)
        request.add(.integer, "job-id", integer: Int32(clamping: id))
        request.add(.name, "requesting-user-name", user)
        request.add(.keyword, "requested-attributes", strings: QueuedJob.attributeNames)
        let response = try send(request, to: "/")
        guard let job = response.groups(.job).first.flatMap(QueuedJob.init) else {
            throw .submitFailed("cupsd's answer for job \(id) has no job id or state")
        }
        return job
    }

    /// The operations clupd asks for (RFC 8011; Cancel-Job 0x0008).
    enum Operation: UInt16 {
        case printJob = 0x0002
        case cancelJob = 0x0008
        case getJobAttributes = 0x0009
        case getJobs = 0x000A
        case getPrinterAttributes = 0x000B
    }

    private func newRequest(_ operation: Operation) -> IPPRequest {
        IPPRequest(operation: operation.rawValue, requestID: Self.nextRequestID())
    }

    private static let requestCounter = Mutex<Int32>(0)

    private static func nextRequestID() -> Int32 {
        requestCounter.withLock { counter in
            counter = counter == Int32.max ? 1 : counter + 1
            return counter
        }
    }

    /// Sends `request` and returns cupsd's answer if its status is a success; otherwise the
    /// error it stands for.
    private func send(_ request: IPPRequest, to path: String, document: [UInt8] = []) throws(PrintError) -> IPPResponse {
        let response: IPPResponse
        do {
            response = try client.send(request, to: path, document: document, user: user)
        } catch {
            switch error {
            case let .unreachable(detail): throw .serverUnreachable(detail)
            case let .badAnswer(detail): throw .submitFailed(detail)
            }
        }
        guard response.succeeded else { throw error(for: response) }
        return response
    }

    /// An IPP error status as a PrintError, named by cupsd's `status-message` when it gave one.
    func error(for response: IPPResponse) -> PrintError {
        let message = Self.strings(response.first("status-message")).first
        let detail = message.map { "\($0) (IPP status 0x\(String(response.status, radix: 16)))" }
            ?? "IPP status 0x\(String(response.status, radix: 16))"
        switch response.status {
        case 0x0406: return .noSuchQueue(queue)           // client-error-not-found
        case 0x0507: return .serverUnreachable(detail)    // server-error-service-unavailable
        default: return .submitFailed(detail)
        }
    }

    /// The strings of a free-text or keyword attribute of cupsd's (a message, the reasons),
    /// as they may go on to logs, the shell and the hub: 32 values at most, each cut at 200
    /// characters and escaped (a backend can put a device's text in them).
    static func strings(_ attribute: IPPAttribute?) -> [String] {
        (attribute?.values.compactMap(\.string) ?? []).prefix(32).map { TypedText.escaped(String($0.prefix(200))) }
    }
}

extension QueuedJob {
    /// The job an IPP job group describes; nil without an id or a state.
    init?(_ group: IPPAttributeGroup) {
        guard let id = group["job-id"]?.values.first?.integer.map(Int.init), id > 0,
              let state = group["job-state"]?.values.first?.integer.flatMap(JobState.init(rawValue:))
        else { return nil }
        let name = group["job-name"]?.values.first?.string ?? ""
        let reasons = CUPSPrinter.strings(group["job-state-reasons"])
        let documents = group["number-of-documents"]?.values.first?.integer.map(Int.init)
        self.init(id: id, name: name, state: state, reasons: reasons.filter { $0 != "none" }, documents: documents)
    }
}
