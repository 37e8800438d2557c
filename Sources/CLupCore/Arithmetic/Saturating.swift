/// Arithmetic that cannot trap, for figures that come from outside: a stored event, a
/// device, a client. A number past the type's range sticks at its bound instead of stopping
/// the daemon; a count that large is already wrong, and staff see it and correct it.
extension FixedWidthInteger {
    /// `self + other`, held at the type's bounds.
    public func addingSaturating(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, held at the type's bounds.
    public func subtractingSaturating(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other > 0 ? .min : .max
    }

    /// `value` rounded toward zero and held at the type's bounds; NaN is 0.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= Double(Self.max) {
            self = .max
        } else if value <= Double(Self.min) {
            self = .min
        } else {
            self.init(value.rounded(.towardZero))
        }
    }
}

extension Sequence where Element: FixedWidthInteger {
    /// The sum, held at the type's bounds.
    public func saturatingSum() -> Element {
        reduce(0) { $0.addingSaturating($1) }
    }
}
