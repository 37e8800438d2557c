import ArgumentParser
import CLupCore
import Foundation

/// `clupctl errors [CODE]`: what an error code means and what to do, without clupd.
struct Errors: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Explain an error code (\(ErrorCode.outOfPaper.rawValue)), or list them all.")

    @Argument(help: "A code such as \(ErrorCode.outOfPaper.rawValue); all of them when left out.",
              completion: .custom { _, _, _ in Completions.errorCodes() }) var code: String?
    @Flag(help: "Print the whole list as Markdown (docs/errors.md).") var markdown = false
    @Flag(help: "Print JSON: each code, its meaning and what to do.") var json = false

    struct Entry: Encodable {
        let code: String
        let meaning: String
        let action: String
    }

    func run() throws {
        if markdown { return print(ErrorCode.markdownCatalog, terminator: "") }
        if json {
            let codes = try code.map { text in
                guard let known = ErrorCode(rawValue: text.uppercased()) else { throw ValidationError("no error code \(quoted(text)) (clupctl errors lists them)") }
                return [known]
            } ?? ErrorCode.allCases
            return try printJSON(codes.map { Entry(code: $0.rawValue, meaning: $0.meaning, action: $0.action) })
        }
        guard let code else {
            for code in ErrorCode.allCases { print("\(column(code.rawValue, 11)) \(code.meaning)") }
            return
        }
        guard let known = ErrorCode(rawValue: code.uppercased()) else {
            throw ValidationError("no error code \(quoted(code)) (clupctl errors lists them)")
        }
        print("\(known.rawValue)  \(known.meaning)\nwhat to do: \(known.action)")
    }
}
