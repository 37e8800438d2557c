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

    /// Creates a job, sends the file as its only document and returns the job id.
    public func submit(file path: String, title: String, format: String = "application/pdf") throws(PrintError) -> Int {
        let job = try createJob(title: title)
        try sendDocument(job: job, file: path, title: title, format: format)
        return job
    }

    /// Creates an empty job and returns its id. Nothing prints until `sendDocument`, so the
    /// caller can record the id first and find the job again after a crash.
    public func createJob(title: String) throws(PrintError) -> Int {
        let jobID = cupsCreateJob(nil, queue, title, 0, nil)
        guard jobID > 0 else {
            let error = lastError()
            // libcups reports an unknown queue as a local lookup failure; asking the
            // server about the queue tells the two apart.
            if case .failure(.noSuchQueue) = Result(catching: { () throws(PrintError) in try status() }) {
                throw .noSuchQueue(queue)
            }
            throw error
        }
        return Int(jobID)
    }

    /// Sends the file as the job's only document; on failure the job is cancelled, so
    /// nothing prints later from a job reported as failed.
    public func sendDocument(job: Int, file path: String, title: String,
                             format: String = "application/pdf") throws(PrintError) {
        let jobID = Int32(job)
        guard let file = FileHandle(forReadingAtPath: path) else {
            cupsCancelJob(queue, jobID)
            throw .documentFailed("cannot read \(path)")
        }
        defer { try? file.close() }
        guard cupsStartDocument(nil, queue, jobID, title, format, 1) == HTTP_STATUS_CONTINUE else {
            let error = lastError()
            cupsCancelJob(queue, jobID)
            throw error
        }
        while let chunk = try? file.read(upToCount: 64 * 1024), !chunk.isEmpty {
            let status = chunk.withUnsafeBytes { buffer in
                cupsWriteRequestData(nil, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), buffer.count)
            }
            guard status == HTTP_STATUS_CONTINUE else {
                _ = cupsFinishDocument(nil, queue)
                cupsCancelJob(queue, jobID)
                throw .submitFailed("sending the document: \(Self.lastErrorString())")
            }
        }
        // Statuses below 0x0400 are successes, some with warnings (attributes ignored).
        guard cupsFinishDocument(nil, queue).rawValue < 0x0400 else {
            let error = lastError()
            cupsCancelJob(queue, jobID)
            throw error
        }
    }

    /// Cancels job `id`; a job that already ended is left as it is.
    public func cancel(job id: Int) {
        cupsCancelJob(queue, Int32(id))
    }

    /// Follows job `id` until it ends or `timeout` seconds pass.
    public func follow(job id: Int, timeout: Double, pollInterval: Double = 0.1) -> JobOutcome {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let attributes: (JobState, [String])
            do {
                attributes = try jobAttributes(id)
            } catch {
                return .failed(job: id, reason: error)
            }
            let (state, reasons) = attributes
            switch state {
            case .completed:
                return .completed(job: id)
            case .aborted, .canceled:
                let printerReasons = (try? status().reasons) ?? []
                return .failed(job: id, reason: .from(state: state, reasons: reasons + printerReasons))
            case .stopped:
                // The printer stopped under the job (paper out, door open): it will not
                // finish by itself, and the customer is waiting now.
                let printerReasons = (try? status().reasons) ?? []
                cupsCancelJob(queue, Int32(id))
                return .failed(job: id, reason: .from(state: state, reasons: reasons + printerReasons))
            case .pending, .held, .processing:
                if Date() >= deadline {
                    cupsCancelJob(queue, Int32(id))
                    return .failed(job: id, reason: .timedOut(seconds: timeout))
                }
                Thread.sleep(forTimeInterval: pollInterval)
            }
        }
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

    /// The jobs of this queue that have not ended (pending, held, processing or stopped).
    public func unfinishedJobs() throws(PrintError) -> [QueuedJob] {
        let request = ippNewRequest(IPP_OP_GET_JOBS)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", nil, cupsUser())
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "which-jobs", nil, "not-completed")
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

    func jobAttributes(_ id: Int) throws(PrintError) -> (JobState, [String]) {
        let request = ippNewRequest(IPP_OP_GET_JOB_ATTRIBUTES)
        ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI)
        ippAddInteger(request, IPP_TAG_OPERATION, IPP_TAG_INTEGER, "job-id", Int32(id))
        guard let response = cupsDoRequest(nil, request, "/") else { throw lastError() }
        defer { ippDelete(response) }
        guard let stateAttribute = ippFindAttribute(response, "job-state", IPP_TAG_ENUM),
              let state = JobState(rawValue: ippGetInteger(stateAttribute, 0))
        else { throw lastError() }
        return (state, Self.strings(response, "job-state-reasons").filter { $0 != "none" })
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
