import CLupProtocol
import Foundation
import Hummingbird

/// What a totem offers a customer at the entrance: today's bookable slots, and a booking
/// made for them there; and the frame of its screen the panel asked for.
struct TotemBookingsController {
    let bookings: Bookings
    let screens: RemoteScreens

    func addRoutes(to totems: some RouterMethods<HubRequestContext>) {
        totems.get(RouterPath(HubWire.totemSlotsPath)) { [bookings] _, context in
            let today = try await bookings.slots(store: try context.totem().storeID, day: nil)
            return HubMessage.json(SlotOffers(slots: today.slots.filter(\.bookable).map {
                SlotOffers.Slot(start: $0.start.timeIntervalSince1970, free: $0.free)
            }))
        }
        totems.post(RouterPath(HubWire.totemBookingsPath)) { [bookings] request, context in
            let device = try context.totem()
            var request = request
            let asked = try HubMessage.decode(TotemBookingRequest.self, from: try await HubMessage.body(of: &request, context: context))
            guard asked.slotStart.isFinite, (0...Double(UInt32.max)).contains(asked.slotStart) else {
                throw HubError.badRequest("slotStart is a slot's start in Unix seconds")
            }
            let made = try await bookings.book(store: device.storeID, .init(
                slotStart: Date(timeIntervalSince1970: asked.slotStart), customerRef: Bookings.totemReference(device.deviceID),
                forSomeoneElse: false))
            return HubMessage.json(TotemBooking(number: made.number, code: made.code, slotStart: made.slotStart.timeIntervalSince1970),
                                   status: .created)
        }
        // The frame of its screen someone at the panel asked for (`RemoteScreens`).
        totems.post(RouterPath(HubWire.totemScreenPath)) { [screens] request, context in
            let device = try context.totem()
            var request = request
            let frame = try HubMessage.decode(ScreenFrame.self, from: try await HubMessage.body(of: &request, context: context))
            try await screens.take(frame, from: device.deviceID)
            return HubMessage.json(["ok": true], status: .created)
        }
    }
}
