import CLupProtocol
import Hummingbird
import Logging

/// A new totem's first request: its enrolment token for its identity at the hub.
struct EnrolmentController {
    let enrolment: Enrolment
    let logger: Logger

    func addRoutes(to router: some RouterMethods<HubRequestContext>) {
        router.post(RouterPath(HubWire.enrolPath)) { [enrolment, logger] request, context in
            var request = request
            let body = try await HubMessage.body(of: &request, context: context)
            let asked = try HubMessage.decode(EnrolmentRequest.self, from: body)
            let reply = try await enrolment.enrol(asked)
            logger.info("totem enrolled", metadata: ["device": "\(reply.deviceID)", "store": "\(reply.storeID)", "letter": "\(reply.letter)"])
            return HubMessage.json(reply, status: .created)
        }
    }
}
