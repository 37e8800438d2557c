import CEditLine
import Foundation

/// The shell's line editing, history and Tab completion, through libedit.
enum LineEditor {
    /// What Tab offers: given the line before the word and the word, the candidates.
    /// clupctl is single-threaded: set once before the first line is read.
    nonisolated(unsafe) static var complete: ((_ before: String, _ word: String) -> [String])?

    /// What a read brought.
    enum Line: Equatable {
        case text(String)
        /// Ctrl-C: the line was abandoned.
        case interrupted
        /// Ctrl-D, or the end of input.
        case end
    }

    static func setUp() {
        clup_catch_interrupt()
        _ = clup_rl_setup(completer)
        if let path = historyPath {
            _ = read_history(path)
        }
    }

    static func read(prompt: String) -> Line {
        guard let raw = readline(prompt) else { return .end }
        defer { free(raw) }
        if clup_rl_take_interrupt() != 0 { return .interrupted }
        return .text(String(cString: raw))
    }

    /// Adds the line to the history, kept across sessions (the last 1000 lines).
    static func remember(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix(" ") else { return }
        add_history(line)
        guard let path = historyPath else { return }
        _ = write_history(path)
        _ = history_truncate_file(path, 1000)
        chmod(path, 0o600)
    }

    /// `$XDG_STATE_HOME/clupctl/history`, else `~/.local/state/clupctl/history`; nil if the
    /// folder cannot be made (the shell then keeps no history).
    static let historyPath: String? = {
        let environment = ProcessInfo.processInfo.environment
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        let folder = state + "/clupctl"
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])) != nil else { return nil }
        return folder + "/history"
    }()

    /// libedit's array of matches: the common prefix first, then each match, then NULL;
    /// libedit frees them (so malloc'd). Nil when nothing matches.
    static func matchArray(_ matches: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard !matches.isEmpty else { return nil }
        let array = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: matches.count + 2)
        array[0] = strdup(matches.count == 1 ? matches[0] : commonPrefix(matches))
        for (index, match) in matches.enumerated() { array[index + 1] = strdup(match) }
        array[matches.count + 1] = nil
        return array
    }

    static func commonPrefix(_ words: [String]) -> String {
        guard var prefix = words.first else { return "" }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}

/// libedit calls this on Tab with the word before the cursor (`text`) and where it starts.
private func completer(_ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32)
    -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    clup_rl_completion_over()
    let word = text.map { String(cString: $0) } ?? ""
    let line = clup_rl_line_buffer().map { String(cString: $0) } ?? ""
    let before = String(decoding: Array(line.utf8.prefix(max(0, Int(start)))), as: UTF8.self)
    let matches = LineEditor.complete?(before, word) ?? []
    // libedit frees the array it is given; an empty array is returned as nil.
    return LineEditor.matchArray(matches)
}

/// Ctrl-C while a command runs in the shell (`logs --follow`): back to the prompt, not out of
/// clupctl (outside the shell, Ctrl-C ends clupctl as usual). Read here, beside the line
/// editor: the C flag is file-local, and this is the file whose handler sets it.
enum Interrupt {
    /// Whether Ctrl-C was pressed since the last look.
    static var requested: Bool { clup_take_interrupt_pending() != 0 }
    static func reset() { _ = clup_take_interrupt_pending() }
}
