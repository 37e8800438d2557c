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
    /// stopped), and with `includingEnded` those it keeps the history of.
    public func jobs(includingEnded: Bool = false) throws(PrintError) -> [QueuedJob] {
        let request = ippNewRequest(IPP_OP_GET_JOBS)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", nil, cupsUser())
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "which-jobs", nil, includingEnded ? "all" : "not-completed")
        Self.requestJobAttributes(request)
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
        Self.requestJobAttributes(request)
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

    private static func requestJobAttributes(_ request: OpaquePointer?) {
        let names = QueuedJob.attributeNames.map { strdup($0) }
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
