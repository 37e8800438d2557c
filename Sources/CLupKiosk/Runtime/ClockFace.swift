import Foundation

/// A store's clock face: what happens at a time of day (opening, closing, a new business day)
/// is scheduled for when the face next shows it, rather than looked for every so often.
struct ClockFace {
    private var calendar = Calendar(identifier: .gregorian)

    init(timeZone: TimeZone) {
        calendar.timeZone = timeZone
    }

    /// Minutes past local midnight at `instant`.
    func minuteOfDay(at instant: Date) -> Int {
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    /// The first instant after `instant` at which the face shows `minute` minutes past
    /// midnight; on a day the clocks skip that time, the first one after the gap.
    func next(minuteOfDay minute: Int, after instant: Date) -> Date? {
        calendar.nextDate(after: instant, matching: DateComponents(hour: minute / 60 % 24, minute: minute % 60, second: 0),
                          matchingPolicy: .nextTime)
    }
}
