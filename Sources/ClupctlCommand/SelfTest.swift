import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl selftest [STEP]`: tests the devices one by one, on purpose, with a line each:
/// PASS or FAIL, why, and what to check.
struct SelfTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Test the devices: print a test ticket, show a test pattern, speak, read the sensor, wait for a turnstile pulse, pulse the release line, read a code.",
        discussion: "A test pulse is not counted in the ledger and a test scan admits nobody. Refused while a customer uses the totem, unless --force.")
    @OptionGroup var connection: Connection
    @Argument(help: "One step: \(SelfTestStep.allCases.map(\.rawValue).joined(separator: ", ")); all of them when left out.",
              completion: .custom { _, _, _ in Completions.selfTestSteps() })
    var step: SelfTestStep?
    @Option(help: "How long a step waits for the device (a person at the sensor, a pulse, a code, the print job), in seconds.")
    var timeout = 20
    @Flag(help: "Even while a customer uses the totem.") var force = false
    @Flag(help: "Do not ask whether the test pattern was seen.") var noAsk = false
    @Flag(help: "Print JSON, one result per step.") var json = false

    /// What the technician does while a step waits.
    static func instruction(_ step: SelfTestStep, _ timeout: Int) -> String? {
        switch step {
        case .printer: "printing a test ticket and waiting up to \(timeout) s for its job to complete"
        case .screen: "showing a test pattern for 5 s: look at the screen"
        case .voice: "speaking a test sentence: listen"
        case .presence: "waiting up to \(timeout) s for the presence sensor: step in front of the totem (or away)"
        case .turnstile: "waiting up to \(timeout) s for a turnstile pulse: push the arm through"
        case .release: nil
        case .reader: "waiting up to \(timeout) s for a code at the door reader: show it a ticket"
        }
    }

    func run() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout is 1 to 300 seconds") }
        let client = connection.client(waiting: timeout + 40)
        var results: [SelfTestResult] = []
        for step in step.map({ [$0] }) ?? SelfTestStep.allCases {
            if !json, let instruction = Self.instruction(step, timeout) { print("\(step.rawValue): \(instruction)") }
            fflush(nil)
            var result = try client.send(Control.SelfTest(step, timeoutSeconds: timeout, force: force))
            if step == .screen, result.passed, !noAsk, !json, isatty(STDIN_FILENO) == 1 {
                let answer = Terminal.readVisible("did you see the test pattern (bars, grid, a mark in each corner)? [y/n] ")
                if answer?.lowercased().hasPrefix("y") != true {
                    result = SelfTestResult(step: .screen, device: result.device, passed: false,
                                            reason: "the pattern was drawn but the technician did not see it",
                                            check: "the display's cable, its backlight and hardware.display")
                }
            }
            results.append(result)
            if !json { Self.show(result) }
        }
        if json { try printJSON(results) }
        if results.contains(where: { !$0.passed }) { throw ExitCode(1) }
    }

    static func show(_ result: SelfTestResult) {
        print("\(result.passed ? "PASS" : "FAIL") \(column(result.step.rawValue, 10)) \(column(shown(result.device), 28)) \(shown(result.reason))")
        if let check = result.check { print("     check: \(shown(check))") }
        fflush(nil)
    }
}

extension SelfTestStep: ExpressibleByArgument {}
