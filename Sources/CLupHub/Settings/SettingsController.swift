import CLupProtocol
import Hummingbird

/// A totem's long poll for its settings: answered at once when the store's version is past
/// `after`, else when it changes (`SettingsSignals`) or after `HubWire.settingsWait`.
struct SettingsController {
    let database: HubDatabase
    let signals: SettingsSignals

    func addRoutes(to totems: some RouterMethods<HubRequestContext>) {
        totems.get(RouterPath(HubWire.settingsPath)) { [database, signals] request, context in
            let device = try context.totem()
            let after = request.uri.queryParameters.get("after").flatMap { Int64($0) } ?? 0
            return HubMessage.json(try await StoreSettingsReader.next(store: device.storeID, device: device.deviceID, after: after,
                                                                      wait: HubWire.settingsWait, database: database, signals: signals))
        }
    }
}
