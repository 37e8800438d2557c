import CLupCore

// What clupctl prints of text it did not write itself: fields that came from clupd (names,
// reasons, results, printer messages), lines of a log, what the user typed. Each goes
// through `TypedText`, so that none can start a new line, move the cursor, clear the screen
// or retitle the terminal; a forged audit line shows as one line with a visible `\n` in it.

/// A field from clupd, a file or a person, escaped for the terminal. clupd keeps what people
/// typed escaped already (an audit entry's fields), so backslashes are not doubled again.
func shown(_ text: String) -> String { TypedText.shown(text) }

/// Text clupd sends as several lines (a TOML file): each line escaped, the breaks kept.
func shownLines(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { shown(String($0)) }.joined(separator: "\n")
}

/// What the user typed, quoted in one of clupctl's own messages: escaped, and at most 60
/// characters (an ellipsis says the rest was left out).
func quoted(_ text: String) -> String { TypedText.inMessage(text, maximum: 60) }
