import Foundation

extension KioskConfiguration {
    /// The configuration as TOML that `parse` reads back to the same value.
    public var toml: String {
        func text(_ value: String) -> String {
            "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        func number(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(value)
        }
        let dayStart = String(format: "%02d:%02d", businessDayStartMinute / 60, businessDayStartMinute % 60)
        return """
            [store]
            id = \(storeID)
            name = \(text(storeName))
            timezone = \(text(timeZone.identifier))
            business_day_start = \(text(dayStart))

            [totem]
            letter = \(text(String(totemLetter)))
            door = \(text(doorName))

            [printer]
            queue = \(text(printerQueue))
            paper = \(text(paper.rawValue))
            profile = \(text(printerProfilePath ?? ""))
            timeout_seconds = \(number(printTimeoutSeconds))

            [screen]
            width = \(screenWidth)
            height = \(screenHeight)
            idle_timeout_seconds = \(number(idleTimeoutSeconds))
            result_seconds = \(number(resultScreenSeconds))

            [tickets]
            valid_minutes = \(ticketValidMinutes)
            default_wait_minutes = \(defaultWaitMinutes)
            languages = [\(languages.map(text).joined(separator: ", "))]

            [queue]
            capacity = \(policy.capacity)
            priority_share = \(policy.priorityShare)
            aging_bound_minutes = \(number(policy.agingBound / 60))
            presentation_window_minutes = \(number(policy.presentationWindow / 60))
            booking_early_minutes = \(number(policy.bookingEarly / 60))
            booking_late_minutes = \(number(policy.bookingLate / 60))
            slot_minutes = \(number(policy.slotLength / 60))
            booking_share = \(policy.bookingShare)

            [hardware]
            mode = \(text(hardware.rawValue))
            display = \(text(displayPath ?? ""))
            display_format = \(text(displayFormat?.configValue ?? ""))
            speaker = \(text(speakerDevice ?? ""))
            touchscreen = \(text(touchscreenPath ?? ""))
            touchscreen_axes = \(text(touchscreenAxesPath ?? ""))
            calibration = [\(touchCalibration.map { String($0) }.joined(separator: ", "))]
            reader = \(text(readerPath ?? ""))
            reader_layout = \(text(readerLayout))
            serial_reader = \(text(serialReaderPath ?? ""))
            presence = \(text(presencePath ?? ""))
            proximity = \(text(proximityPath ?? ""))
            proximity_near = \(proximityNear)
            proximity_far = \(proximityFar)
            turnstile = \(text(turnstilePath ?? ""))
            turnstile_entry_key = \(turnstileEntryKey)
            turnstile_exit_key = \(turnstileExitKey)
            pir = \(text(pirLine?.description ?? ""))
            pir_active_low = \(pirActiveLow)
            pir_hold = \(pirHoldSeconds)
            turnstile_entry_line = \(text(turnstileEntryLine?.description ?? ""))
            turnstile_exit_line = \(text(turnstileExitLine?.description ?? ""))
            turnstile_lines_active_low = \(turnstileLinesActiveLow)
            turnstile_release = \(text(turnstileRelease?.configValue ?? ""))
            turnstile_release_active_low = \(turnstileReleaseActiveLow)
            usb_profiles = \(text(usbProfilesPath ?? ""))

            [voice]
            enabled = \(voiceEnabled)
            words_per_minute = \(voiceWordsPerMinute)

            [control]
            group = \(text(controlGroup ?? ""))

            [keys]
            \(totemKeys.sorted { $0.key < $1.key }.map { "\($0.key) = \(text($0.value.base64EncodedString()))" }.joined(separator: "\n"))
            """
    }
}
