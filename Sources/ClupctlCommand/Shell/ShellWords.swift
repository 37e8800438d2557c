/// Splits a line typed at the shell into words as a POSIX shell would for plain words:
/// spaces separate, single and double quotes group, a backslash escapes the next character.
enum ShellWords {
    enum Problem: Error, Equatable, CustomStringConvertible {
        case unterminatedQuote(Character)
        case trailingBackslash

        var description: String {
            switch self {
            case let .unterminatedQuote(quote): "a \(quote) quote is not closed"
            case .trailingBackslash: "a backslash at the end of the line"
            }
        }
    }

    static func split(_ line: String) throws(Problem) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                word.append(character)
                escaped = false
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\" && open == "\"" {
                    escaped = true
                } else {
                    word.append(character)
                }
                continue
            }
            switch character {
            case "\\":
                escaped = true
                inWord = true
            case "'", "\"":
                quote = character
                inWord = true
            case " ", "\t":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            default:
                word.append(character)
                inWord = true
            }
        }
        if let quote { throw .unterminatedQuote(quote) }
        if escaped { throw .trailingBackslash }
        if inWord { words.append(word) }
        return words
    }
}
