/// One finger's touch from down to up, in the panel's raw coordinates.
public struct Contact: Hashable, Sendable {
    /// The tracking id the panel gave it (or a number of ours for panels without ids).
    public let id: Int
    public let startTime: Double
    public let startX: Int32
    public let startY: Int32
    public internal(set) var endTime: Double
    public private(set) var endX: Int32
    public private(set) var endY: Int32
    /// The box the finger stayed in, so a drag that comes back is still a drag.
    public private(set) var minX, maxX, minY, maxY: Int32
    /// The contact did not end by lifting: events were dropped or the device went away.
    public internal(set) var cancelled = false

    init(id: Int, time: Double, x: Int32, y: Int32) {
        self.id = id
        startTime = time
        startX = x
        startY = y
        endTime = time
        endX = x
        endY = y
        minX = x
        maxX = x
        minY = y
        maxY = y
    }

    mutating func move(to x: Int32, _ y: Int32, at time: Double) {
        endTime = time
        endX = x
        endY = y
        minX = Swift.min(minX, x)
        maxX = Swift.max(maxX, x)
        minY = Swift.min(minY, y)
        maxY = Swift.max(maxY, y)
    }
}

/// Decodes a touch panel's event stream into contacts: multitouch protocol B (slots),
/// protocol A (`SYN_MT_REPORT`) and single-touch (`BTN_TOUCH`, or `BTN_LEFT` from a panel
/// in mouse emulation, with `ABS_X`/`ABS_Y`).
///
/// Events between two `SYN_REPORT`s are one frame; contacts begin, move and end at frame
/// boundaries. After `SYN_DROPPED` everything up to the next `SYN_REPORT` is discarded
/// and the contacts in progress are cancelled, unless `resync` gives the device's state.
public struct TouchDecoder: Sendable {
    /// How the panel reports contacts.
    public enum Mode: Equatable, Sendable {
        case slots(Int)
        case protocolA
        case singleTouch
    }

    /// The mode a device with these axes uses.
    public static func mode(for axes: [UInt16: AxisRange]) -> Mode {
        if let slot = axes[EventCode.slot] { return .slots(max(1, min(64, Int(slot.maximum) + 1))) }
        if axes[EventCode.positionX] != nil { return .protocolA }
        return .singleTouch
    }

    struct Slot: Sendable {
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        var contact: Contact?
    }

    public let mode: Mode
    var slots: [Slot]
    /// nil while the current slot is out of range: its events are ignored.
    var currentSlot: Int? = 0
    var dropping = false
    // Protocol A: the points of the frame being read, and the contacts of the last frame.
    var framePoints: [(id: Int32?, x: Int32, y: Int32)] = []
    var point: (id: Int32?, x: Int32, y: Int32) = (nil, 0, 0)
    var pointHasData = false
    var active: [Contact] = []
    // Single touch.
    var touching = false
    var singleX: Int32 = 0
    var singleY: Int32 = 0
    var nextID = 0

    public init(mode: Mode) {
        self.mode = mode
        if case let .slots(count) = mode {
            slots = Array(repeating: Slot(), count: count)
        } else {
            slots = []
        }
    }

    /// Contacts in progress.
    public var activeContacts: [Contact] {
        switch mode {
        case .slots: slots.compactMap(\.contact)
        case .protocolA, .singleTouch: active
        }
    }

    /// Feeds one event; returns the contacts that ended with it.
    public mutating func feed(_ event: InputEvent) -> [Contact] {
        if event.type == EventCode.synchronization && event.code == EventCode.dropped {
            dropping = true
            return []
        }
        if dropping {
            guard event.type == EventCode.synchronization && event.code == EventCode.report else { return [] }
            dropping = false
            return releaseAll(at: event.time)
        }
        switch mode {
        case .slots: return feedSlots(event)
        case .protocolA: return feedProtocolA(event)
        case .singleTouch: return feedSingleTouch(event)
        }
    }

    /// Where the device's fingers were last, as it tells on being opened (`EVIOCGMTSLOTS`,
    /// `EVIOCGABS`): each slot's position and the current slot (protocol B), or the single
    /// touch's position. The kernel sends a value only when it changes, so a touch landing
    /// where one did before the device was opened brings no position of its own, and would
    /// otherwise start at 0, 0 (or in the wrong slot).
    public mutating func seed(slots positions: [(x: Int32, y: Int32)], currentSlot: Int, single: (x: Int32, y: Int32)) {
        for (index, position) in positions.enumerated() where index < slots.count && slots[index].contact == nil {
            slots[index].x = position.x
            slots[index].y = position.y
        }
        if case .slots = mode { self.currentSlot = slots.indices.contains(currentSlot) ? currentSlot : nil }
        if !touching {
            singleX = single.x
            singleY = single.y
        }
    }

    /// Ends every contact in progress as cancelled (the device went away or events were lost).
    public mutating func releaseAll(at time: Double) -> [Contact] {
        var ended = activeContacts.map { contact -> Contact in
            var contact = contact
            contact.endTime = time
            contact.cancelled = true
            return contact
        }
        ended.sort { $0.startTime < $1.startTime }
        for index in slots.indices { slots[index] = Slot() }
        active = []
        framePoints = []
        pointHasData = false
        touching = false
        return ended
    }

    /// The device's state read back after `SYN_DROPPED` (`EVIOCGMTSLOTS`): tracking id and
    /// position per slot, and the current slot. Contacts still down go on.
    public mutating func resync(slots snapshot: [(trackingID: Int32, x: Int32, y: Int32)], currentSlot: Int,
                                at time: Double) -> [Contact] {
        guard case .slots = mode else { return [] }
        var ended: [Contact] = []
        for (index, state) in snapshot.enumerated() where index < slots.count {
            if var contact = slots[index].contact {
                if Int32(contact.id) != state.trackingID {
                    contact.endTime = time
                    ended.append(contact)
                    slots[index].contact = nil
                } else {
                    contact.move(to: state.x, state.y, at: time)
                    slots[index].contact = contact
                }
            }
            slots[index].trackingID = state.trackingID
            slots[index].x = state.x
            slots[index].y = state.y
            if state.trackingID >= 0 && slots[index].contact == nil {
                slots[index].contact = Contact(id: Int(state.trackingID), time: time, x: state.x, y: state.y)
            }
        }
        self.currentSlot = (0..<slots.count).contains(currentSlot) ? currentSlot : nil
        dropping = false
        return ended
    }

    // MARK: Protocol B

    private mutating func feedSlots(_ event: InputEvent) -> [Contact] {
        switch (event.type, event.code) {
        case (EventCode.absolute, EventCode.slot):
            currentSlot = (0..<slots.count).contains(Int(event.value)) ? Int(event.value) : nil
        case (EventCode.absolute, EventCode.trackingID):
            if let slot = currentSlot { slots[slot].trackingID = event.value }
        case (EventCode.absolute, EventCode.positionX):
            if let slot = currentSlot { slots[slot].x = event.value }
        case (EventCode.absolute, EventCode.positionY):
            if let slot = currentSlot { slots[slot].y = event.value }
        case (EventCode.synchronization, EventCode.report):
            return endFrameSlots(at: event.time)
        default:
            break
        }
        return []
    }

    private mutating func endFrameSlots(at time: Double) -> [Contact] {
        var ended: [Contact] = []
        for index in slots.indices {
            var slot = slots[index]
            if var contact = slot.contact {
                if Int32(contact.id) == slot.trackingID {
                    contact.move(to: slot.x, slot.y, at: time)
                    slot.contact = contact
                } else {
                    contact.endTime = time
                    ended.append(contact)
                    slot.contact = nil
                }
            }
            if slot.contact == nil && slot.trackingID >= 0 {
                slot.contact = Contact(id: Int(slot.trackingID), time: time, x: slot.x, y: slot.y)
            }
            slots[index] = slot
        }
        return ended
    }

    // MARK: Protocol A

    private mutating func feedProtocolA(_ event: InputEvent) -> [Contact] {
        switch (event.type, event.code) {
        case (EventCode.absolute, EventCode.trackingID): point.id = event.value; pointHasData = true
        case (EventCode.absolute, EventCode.positionX): point.x = event.value; pointHasData = true
        case (EventCode.absolute, EventCode.positionY): point.y = event.value; pointHasData = true
        case (EventCode.synchronization, EventCode.multitouchReport):
            // An empty SYN_MT_REPORT (no data before it) means "no contacts".
            if pointHasData && point.id.map({ $0 >= 0 }) ?? true { framePoints.append(point) }
            point = (nil, 0, 0)
            pointHasData = false
        case (EventCode.synchronization, EventCode.report):
            return endFrameProtocolA(at: event.time)
        default:
            break
        }
        return []
    }

    private mutating func endFrameProtocolA(at time: Double) -> [Contact] {
        let points = framePoints
        framePoints = []
        var next: [Contact] = []
        var previous = active
        for (index, point) in points.enumerated() {
            // Match by tracking id when the panel sends one, else by order in the frame.
            let match: Int? = if let id = point.id {
                previous.firstIndex { $0.id == Int(id) }
            } else {
                index < active.count ? previous.firstIndex { $0.id == active[index].id } : nil
            }
            if let match {
                var contact = previous.remove(at: match)
                contact.move(to: point.x, point.y, at: time)
                next.append(contact)
            } else {
                let id = point.id.map(Int.init) ?? takeID()
                next.append(Contact(id: id, time: time, x: point.x, y: point.y))
            }
        }
        active = next
        return previous.map { contact in
            var ended = contact
            ended.endTime = time
            return ended
        }
    }

    // MARK: Single touch

    private mutating func feedSingleTouch(_ event: InputEvent) -> [Contact] {
        switch (event.type, event.code) {
        case (EventCode.absolute, EventCode.x): singleX = event.value
        case (EventCode.absolute, EventCode.y): singleY = event.value
        case (EventCode.key, EventCode.touch), (EventCode.key, EventCode.leftButton): touching = event.value != 0
        case (EventCode.synchronization, EventCode.report):
            if touching, var contact = active.first {
                contact.move(to: singleX, singleY, at: event.time)
                active = [contact]
            } else if touching {
                active = [Contact(id: takeID(), time: event.time, x: singleX, y: singleY)]
            } else if var contact = active.first {
                contact.endTime = event.time
                active = []
                return [contact]
            }
        default:
            break
        }
        return []
    }

    private mutating func takeID() -> Int {
        nextID += 1
        return nextID
    }
}
