/// Debian's order of package versions, as `dpkg --compare-versions` decides it (Debian
/// Policy 5.6.12): the epoch as a number, then the upstream version and the revision, each
/// compared in runs of non-digits (letters before other characters, `~` before everything,
/// even the end) and runs of digits (as numbers).
///
/// The update helper decides with it whether a release would go down from the one installed;
/// the hub, which versions of its repository are older.
public enum DebianVersion {
    /// Whether `a` comes before `b`.
    public static func isOlder(_ a: String, than b: String) -> Bool { compare(a, b) < 0 }

    /// Negative if `a` is older than `b`, zero if they are the same version, positive if newer.
    public static func compare(_ a: String, _ b: String) -> Int {
        let (epochA, upstreamA, revisionA) = parts(a), (epochB, upstreamB, revisionB) = parts(b)
        if epochA != epochB { return epochA < epochB ? -1 : 1 }
        let upstream = compareRuns(Array(upstreamA.utf8), Array(upstreamB.utf8))
        return upstream != 0 ? upstream : compareRuns(Array(revisionA.utf8), Array(revisionB.utf8))
    }

    /// The epoch (0 if none, or if it is not a small number), the upstream version and the revision.
    static func parts(_ version: String) -> (Int, Substring, Substring) {
        var rest = Substring(version)
        var epoch = 0
        if let colon = rest.firstIndex(of: ":") {
            epoch = Int(rest[..<colon]).flatMap { (0...Int(Int32.max)).contains($0) ? $0 : nil } ?? 0
            rest = rest[rest.index(after: colon)...]
        }
        guard let dash = rest.lastIndex(of: "-") else { return (epoch, rest, "") }
        return (epoch, rest[..<dash], rest[rest.index(after: dash)...])
    }

    /// dpkg's `verrevcmp`.
    static func compareRuns(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var i = 0, j = 0
        while i < a.count || j < b.count {
            while (i < a.count && !isDigit(a[i])) || (j < b.count && !isDigit(b[j])) {
                let left = i < a.count ? order(a[i]) : 0, right = j < b.count ? order(b[j]) : 0
                if left != right { return left < right ? -1 : 1 }
                i += 1
                j += 1
            }
            while i < a.count && a[i] == UInt8(ascii: "0") { i += 1 }
            while j < b.count && b[j] == UInt8(ascii: "0") { j += 1 }
            var firstDifference = 0
            while i < a.count && isDigit(a[i]) && j < b.count && isDigit(b[j]) {
                if firstDifference == 0 { firstDifference = Int(a[i]) - Int(b[j]) }
                i += 1
                j += 1
            }
            if i < a.count && isDigit(a[i]) { return 1 }
            if j < b.count && isDigit(b[j]) { return -1 }
            if firstDifference != 0 { return firstDifference < 0 ? -1 : 1 }
        }
        return 0
    }

    static func isDigit(_ c: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) }

    /// Where a character of a non-digit run sorts: `~` first, letters, then everything else.
    static func order(_ c: UInt8) -> Int {
        if isDigit(c) { return 0 }
        if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) { return Int(c) }
        if c == UInt8(ascii: "~") { return -1 }
        return Int(c) + 256
    }
}
