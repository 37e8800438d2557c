// CICUData has nothing to call: it only defines the symbol ICU looks its data up by
// (icudata.S). This header is the public folder SwiftPM asks of a C target.
