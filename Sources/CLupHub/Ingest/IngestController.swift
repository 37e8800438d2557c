import CLupProtocol
import Hummingbird

/// A totem's signed upload of its outbox: a batch of events, answered with how far its log
/// is held without a gap.
struct IngestController {
    let ingest: Ingest

    func addRoutes(to totems: some RouterMethods<HubRequestContext>) {
        totems.post(RouterPath(HubWire.eventsPath)) { [ingest] request, context in
            let device = try context.totem()
            var request = request
            let body = try await HubMessage.body(of: &request, context: context)
            // Read by hand when it is the usual shape; else, with its error, by JSONDecoder.
            let scanned = body.withUnsafeReadableBytes { $0.withMemoryRebound(to: UInt8.self) { EventBatch.scanned($0) } }
            let batch = try scanned ?? HubMessage.decode(EventBatch.self, from: body)
            return HubMessage.json(try await ingest.apply(batch, from: device))
        }
    }
}
