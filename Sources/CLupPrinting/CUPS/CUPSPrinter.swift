import CCUPS
import Foundation

/// A CUPS print queue, reached through libcups: submits documents, follows jobs and reads
/// the printer's state. Blocking; the kiosk calls it off its event loop.
///
/// The server is libcups's default (`CUPS_SERVER`, then `/run/cups/cups.sock`).
public struct CUPSPrinter: Sendable {
    public let queue: String

    public init(queue: String) {
        self.queue = queue
    }

    var printerURI: String { "ipp://localhost/printers/\(queue)" }

    /// Sends the file at `path` as a one-document job, in one Print-Job request, and returns
    /// the job's id once cupsd has accepted it. The job is named `title`: after a restart the
    /// kiosk finds its jobs by their titles (`jobs(includingEnded:)`).
    public func printFile(_ path: String, title: String, format: String = "application/pdf") throws(PrintError) -> Int {
        let request = ippNewRequest(IPP_OP_PRINT_JOB)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", nil, cupsUser())
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_NAME, "job-name", nil, title)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_MIMETYPE, "document-format", nil, format)
        guard FileManager.default.isReadableFile(atPath: path) else { throw .documentFailed("cannot read \(path)") }
        guard let response = cupsDoFileRequest(nil, request, "/printers/\(queue)", path) else { throw lastError() }
        defer { ippDelete(response) }
        guard ippGetStatusCode(response).rawValue < 0x0400 else { throw lastError() }
        guard let id = ippFindAttribute(response, "job-id", IPP_TAG_INTEGER).map({ Int(ippGetInteger($0, 0)) }), id > 0 else {
            throw .submitFailed("cupsd accepted the job but gave no job id")
        }
        return id
    }

    /// Cancels job `id`; a job that already ended is left as it is.
    public func cancel(job id: Int) {
        cupsCancelJob(queue, Int32(id))
    }

    /// The queue's state, its reasons and whether it accepts jobs.
    public func status() throws(PrintError) -> PrinterStatus {
        let request = ippNewRequest(IPP_OP_GET_PRINTER_ATTRIBUTES)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI)
        guard let response = cupsDoRequest(nil, request, "/") else { throw lastError() }
        defer { ippDelete(response) }
        guard ippGetStatusCode(response).rawValue < 0x0400 else { throw lastError() }
        let state = ippFindAttribute(response, "printer-state", IPP_TAG_ENUM).map { ippGetInteger($0, 0) } ?? 0
        let stateName = switch state {
        case 3: "idle"
        case 4: "processing"
        case 5: "stopped"
        default: "unknown"
        }
        return PrinterStatus(
            queue: queue, state: stateName,
            reasons: Self.strings(response, "printer-state-reasons").filter { $0 != "none" },
            message: Self.strings(response, "printer-state-message").first ?? "",
            acceptingJobs: ippFindAttribute(response, "printer-is-accepting-jobs", IPP_TAG_BOOLEAN)
                .map { ippGetBoolean($0, 0) != 0 } ?? false)
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
        let request = ippNewRequest(IPP_OP_GET_JOBS)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", nil, cupsUser())
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "which-jobs", nil, which)
        if let limit { ippAddInteger(request, IPP_TAG_OPERATION, IPP_TAG_INTEGER, "limit", Int32(limit)) }
        Self.requestAttributes(Self.listedAttributeNames, request)
        guard let response = cupsDoRequest(nil, request, "/") else { throw lastError() }
        defer { ippDelete(response) }
        guard ippGetStatusCode(response).rawValue < 0x0400 else { throw lastError() }
        // The response lists each job's attributes in a group of its own.
        var jobs: [QueuedJob] = []
        var group: [String: OpaquePointer] = [:]
        func finishGroup() {
            if let job = QueuedJob(group) { jobs.append(job) }
            group = [:]
        }
        var attribute = ippFirstAttribute(response)
        while let current = attribute {
            if ippGetGroupTag(current) != IPP_TAG_JOB || ippGetName(current) == nil {
                finishGroup()
            } else if let name = ippGetName(current) {
                group[String(cString: name)] = current
            }
            attribute = ippNextAttribute(response)
        }
        finishGroup()
        return jobs
    }

    /// Job `id` as cupsd reports it, ended or not.
    public func job(_ id: Int) throws(PrintError) -> QueuedJob {
        let request = ippNewRequest(IPP_OP_GET_JOB_ATTRIBUTES)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI)
        ippAddInteger(request, IPP_TAG_OPERATION, IPP_TAG_INTEGER, "job-id", Int32(id))
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", nil, cupsUser())
        Self.requestAttributes(QueuedJob.attributeNames, request)
        guard let response = cupsDoRequest(nil, request, "/") else { throw lastError() }
        defer { ippDelete(response) }
        guard ippGetStatusCode(response).rawValue < 0x0400 else { throw lastError() }
        var group: [String: OpaquePointer] = [:]
        for name in QueuedJob.attributeNames {
            if let attribute = ippFindAttribute(response, name, IPP_TAG_ZERO) { group[name] = attribute }
        }
        guard let job = QueuedJob(group) else { throw lastError() }
        return job
    }

    private static func requestAttributes(_ attributeNames: [String], _ request: OpaquePointer?) {
        let names = attributeNames.map { strdup($0) }
        defer { names.forEach { free($0) } }
        names.withUnsafeBufferPointer { pointers in
            pointers.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: names.count) { values in
                _ = ippAddStrings(request, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "requested-attributes", Int32(names.count), nil, values)
            }
        }
    }

    static func strings(_ response: OpaquePointer, _ name: String) -> [String] {
        guard let attribute = ippFindAttribute(response, name, IPP_TAG_ZERO) else { return [] }
        return (0..<ippGetCount(attribute)).compactMap { index in
            ippGetString(attribute, index, nil).map { String(cString: $0) }
        }
    }

    static func lastErrorString() -> String {
        String(cString: cupsLastErrorString())
    }

    func lastError() -> PrintError {
        let status = cupsLastError()
        let detail = Self.lastErrorString()
        if status == IPP_STATUS_ERROR_NOT_FOUND { return .noSuchQueue(queue) }
        if status == IPP_STATUS_ERROR_SERVICE_UNAVAILABLE {
            return .serverUnreachable(detail)
        }
        return .submitFailed(detail)
    }
}

extension QueuedJob {
    /// The job described by the IPP attributes `group` holds, by name; nil without an id or a state.
    init?(_ group: [String: OpaquePointer]) {
        guard let id = group["job-id"].map({ Int(ippGetInteger($0, 0)) }), id > 0,
              let state = group["job-state"].flatMap({ JobState(rawValue: ippGetInteger($0, 0)) })
        else { return nil }
        let name = group["job-name"].flatMap { ippGetString($0, 0, nil) }.map { String(cString: $0) } ?? ""
        let reasons = group["job-state-reasons"].map { attribute in
            (0..<ippGetCount(attribute)).compactMap { ippGetString(attribute, $0, nil).map { String(cString: $0) } }
        } ?? []
        let documents = group["number-of-documents"].map { Int(ippGetInteger($0, 0)) }
        self.init(id: id, name: name, state: state, reasons: reasons.filter { $0 != "none" }, documents: documents)
    }
}
