import CLupProtocol
import Hummingbird

/// A door's long poll for its line (`DoorLine`): answered at once when its version is past
/// `after`, else at a join or a leave at the door (`SettingsSignals`) or after
/// `HubWire.settingsWait`. The query says whether the door takes its part of the capacity
/// from its line (`HubWire.lineTakesDoorLimit`: a clupd from before that takes it from its
/// settings, and keeps getting it there).
struct LineController {
    let database: HubDatabase
    let signals: SettingsSignals

    func addRoutes(to totems: some RouterMethods<HubRequestContext>) {
        totems.get(RouterPath(HubWire.linePath)) { [database, signals] request, context in
            let device = try context.totem()
            let after = request.uri.queryParameters.get("after").flatMap { Int64($0) } ?? 0
            let takesDoorLimit = request.uri.queryParameters.get(HubWire.lineTakesDoorLimit) == "1"
            return HubMessage.json(try await RemoteLine.nextLine(store: device.storeID, device: device.deviceID, after: after,
                                                                 takesDoorLimit: takesDoorLimit, wait: HubWire.settingsWait,
                                                                 database: database, signals: signals))
        }
    }
}
