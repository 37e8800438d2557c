import Foundation

/// Every error a person can see, each code once: what it means and what to do about it.
///
/// The one registry of codes. A code is stable: logs, the shell, the screen and the wire
/// carry it, and staff look it up (`clupctl errors CODE`, `docs/errors.md`, generated
/// from this list). A code is never reused for something else; a retired one stays listed.
public enum ErrorCode: String, CaseIterable, Codable, Sendable {
    // MARK: The queue (E-Q)
    case storeFull = "E-Q-001"
    case nobodyWaiting = "E-Q-002"
    case unknownTicket = "E-Q-003"
    case notCalledYet = "E-Q-004"
    case alreadyUsed = "E-Q-005"
    case noShow = "E-Q-006"
    case notPrinted = "E-Q-007"
    case outsideBookingWindow = "E-Q-008"
    case slotFull = "E-Q-009"
    case notReprintable = "E-Q-010"
    case noSuchSlot = "E-Q-011"
    case numbersUsedUp = "E-Q-012"
    case voidWithoutReason = "E-Q-013"
    case alreadyVoided = "E-Q-014"
    case reasonNotOneLine = "E-Q-015"

    // MARK: The door (E-DOOR)
    case unreadableCode = "E-DOOR-001"
    case forgedCode = "E-DOOR-002"
    case otherStoresTicket = "E-DOOR-003"
    case unknownTotemKey = "E-DOOR-004"
    case expiredTicket = "E-DOOR-005"
    case unreadableScan = "E-DOOR-006"
    case otherTotemsTicket = "E-DOOR-007"
    case bookingCancelled = "E-DOOR-008"
    case voidedTicket = "E-DOOR-009"
    case leftTheLine = "E-DOOR-010"

    // MARK: Occupancy (E-OCC)
    case correctionBelowZero = "E-OCC-001"
    case correctionWithoutReason = "E-OCC-002"
    case zeroCorrection = "E-OCC-003"
    case correctionTooLarge = "E-OCC-004"
    case countOutOfRange = "E-OCC-005"

    // MARK: Printing (E-PRN)
    case noSuchPrinterQueue = "E-PRN-001"
    case printServerUnreachable = "E-PRN-002"
    case outOfPaper = "E-PRN-003"
    case printJobRefused = "E-PRN-004"
    case printJobEnded = "E-PRN-006"
    case printTimedOut = "E-PRN-007"
    case ticketLayoutFailed = "E-PRN-008"
    case printerNotReady = "E-PRN-009"
    case codeTooLongForQR = "E-PRN-010"
    case badPrinterProfile = "E-PRN-020"
    case paperCountUnsaved = "E-PRN-021"

    // MARK: The totem's database (E-DB)
    case notADatabase = "E-DB-001"
    case foreignDatabase = "E-DB-002"
    case databaseUnopenable = "E-DB-003"
    case damagedDatabase = "E-DB-004"
    case diskFull = "E-DB-005"
    case noCopyBeforeMigrating = "E-DB-006"
    case unreadableRow = "E-DB-010"
    case eventOfAnotherDay = "E-DB-011"
    case unreadableEvent = "E-DB-012"

    // MARK: The kiosk (E-KSK)
    case ticketNotRecorded = "E-KSK-001"
    case passageNotRecorded = "E-KSK-002"
    case restartedBeforePrinting = "E-KSK-003"
    case printJobNotRecorded = "E-KSK-004"
    case turnstileDidNotOpen = "E-KSK-005"
    case printJobForgotten = "E-KSK-006"

    // MARK: The control socket and the shell (E-CTL)
    case socketInUse = "E-CTL-001"
    case cannotListen = "E-CTL-002"
    case permissionDenied = "E-CTL-003"
    case noRequest = "E-CTL-004"
    case requestNotUnderstood = "E-CTL-005"
    case realDevice = "E-CTL-006"
    case nothingDrawnYet = "E-CTL-007"
    case nobodyCalled = "E-CTL-008"
    case notATicketNumber = "E-CTL-009"
    case stopping = "E-CTL-010"
    case tooManyConnections = "E-CTL-011"
    case socketPathTooLong = "E-CTL-012"
    case internalError = "E-CTL-013"
    case daemonNotRunning = "E-CTL-014"
    case replyNotUnderstood = "E-CTL-015"
    case noSuchButton = "E-CTL-016"
    case badEmployee = "E-CTL-017"
    case unknownEmployee = "E-CTL-018"
    case employeeExists = "E-CTL-019"
    case loginRequired = "E-CTL-020"
    case sessionEnded = "E-CTL-021"
    case nameLocked = "E-CTL-022"
    case wrongSecret = "E-CTL-023"
    case badTechnician = "E-CTL-024"
    case technicianExists = "E-CTL-025"
    case unknownTechnician = "E-CTL-026"
    case deviceBusy = "E-CTL-027"
    case selfTestTimedOut = "E-CTL-028"
    case workTimedOut = "E-CTL-029"

    // MARK: Configuration (E-CFG)
    case badConfiguration = "E-CFG-001"
    case configurationNotReloaded = "E-CFG-002"
    case restartNeeded = "E-CFG-003"

    // MARK: State directory and keys (E-STA, E-KEY)
    case stateDirectoryUncreatable = "E-STA-001"
    case lockUnopenable = "E-STA-002"
    case stateDirectoryInUse = "E-STA-003"
    case keyUnreadable = "E-KEY-001"
    case keyReadableByOthers = "E-KEY-002"
    case notAKey = "E-KEY-003"
    case keyUncreatable = "E-KEY-004"
    case keyUnwritable = "E-KEY-005"
    case keySealedElsewhere = "E-KEY-006"
    case keyNotSealed = "E-KEY-007"
    case keySealingFailed = "E-KEY-008"

    // MARK: Devices (E-HW, E-USB, E-GFX, E-SIM)
    case badRecording = "E-HW-010"
    case noReleaseOutput = "E-HW-020"
    case releaseOutputFailed = "E-HW-021"
    case displayFailed = "E-HW-030"
    case speechDataMissing = "E-HW-040"
    case noVoiceForLanguage = "E-HW-041"
    case synthesisFailed = "E-HW-042"
    case notAWAVFile = "E-HW-043"
    case speakerUnopenable = "E-HW-044"
    case alsaConfiguration = "E-HW-045"
    case speakerRefusesFormat = "E-HW-046"
    case playingFailed = "E-HW-047"
    case speechHelperFailed = "E-HW-048"
    case usbUnreadable = "E-USB-001"
    case badUSBProfiles = "E-USB-002"
    case noHotplug = "E-USB-003"
    case hotplugFailed = "E-USB-004"
    case drawingFailed = "E-GFX-001"
    case offThePanel = "E-SIM-001"
    case calibrationDegenerate = "E-CAL-001"
    case calibrationTooFarOff = "E-CAL-002"
    case calibrationNotStarted = "E-CAL-003"

    // MARK: The hub (E-HUB), as it answers totems and administrators
    case enrolmentCodeUnknown = "E-HUB-001"
    case enrolmentCodeUsed = "E-HUB-002"
    case enrolmentCodeExpired = "E-HUB-003"
    case unknownDevice = "E-HUB-004"
    case revokedDevice = "E-HUB-005"
    case badSignature = "E-HUB-006"
    case replayedRequest = "E-HUB-007"
    case staleRequest = "E-HUB-008"
    case badHubRequest = "E-HUB-009"
    case hubDatabaseUnavailable = "E-HUB-010"
    case unknownStore = "E-HUB-011"
    case letterTaken = "E-HUB-012"
    case hubKeysUnusable = "E-HUB-013"
    case hubInternalError = "E-HUB-014"
    case storeExists = "E-HUB-015"
    case hubDatabaseError = "E-HUB-016"
    case migrationMissing = "E-HUB-017"
    case unknownBooking = "E-HUB-018"
    case bookingSlotFull = "E-HUB-019"
    case bookingClosed = "E-HUB-020"
    case bookingsOff = "E-HUB-021"
    case panelForbidden = "E-HUB-022"
    case unknownHubEmployee = "E-HUB-023"
    case hubEmployeeExists = "E-HUB-024"
    case releaseRefused = "E-HUB-025"
    case releaseToolFailed = "E-HUB-026"
    case doorNotHeard = "E-HUB-027"
    case alreadyInLine = "E-HUB-028"
    case joinLimit = "E-HUB-029"
    case unknownPlace = "E-HUB-030"
    case placeOver = "E-HUB-031"
    case storeClosed = "E-HUB-032"
    case idempotencyKeyReused = "E-HUB-033"

    // MARK: The totem's sync with the hub (E-SYNC)
    case hubUnreachable = "E-SYNC-001"
    case hubAnswerUnreadable = "E-SYNC-002"
    case hubError = "E-SYNC-003"
    case notEnrolled = "E-SYNC-004"
    case enrolmentUnreadable = "E-SYNC-005"
    case hubCertificateUnusable = "E-SYNC-006"
    case alreadyEnrolled = "E-SYNC-007"
    case databaseOfAnotherDevice = "E-SYNC-008"

    // MARK: The totem's software updates (E-UPD)
    case noReleaseKey = "E-UPD-001"
    case releaseKeyChanged = "E-UPD-002"
    case updateSourceUnwritable = "E-UPD-003"
    case updateStepFailed = "E-UPD-004"
    case releaseNotVouched = "E-UPD-005"
    case releaseManifestExpired = "E-UPD-006"
    case releaseDowngrade = "E-UPD-007"
    case releaseSigningKeyUnusable = "E-UPD-008"

    /// What the code means, in a sentence, and what a person should do.
    public var entry: (meaning: String, action: String) {
        switch self {
        case .storeFull: ("No room: every place is taken or promised to a called ticket.",
                          "Wait: the next ticket is called as soon as someone leaves.")
        case .nobodyWaiting: ("Nobody is waiting to be called.", "Nothing to do.")
        case .unknownTicket: ("Not a ticket this totem issued today.", "Check the number; the customer may take a new ticket.")
        case .notCalledYet: ("The ticket has not been called yet.", "Wait until its number is called on the screen and by the voice.")
        case .alreadyUsed: ("The ticket was already used at the door.", "A ticket admits once; the customer takes a new one.")
        case .noShow: ("The ticket was called but did not reach the door within its window.", "The customer takes a new ticket.")
        case .notPrinted: ("The ticket never came out of the printer.", "Reprint it (`clupctl reprint`) or issue a new one.")
        case .outsideBookingWindow: ("A booking scanned outside the window around its slot.", "Come back within the window.")
        case .slotFull: ("The booking slot holds all the bookings it may.", "Choose another slot.")
        case .notReprintable: ("Only a ticket the printer failed is printed again.", "Issue a new ticket instead.")
        case .noSuchSlot: ("Not the start of one of the store's booking slots.", "Choose a slot the store offers.")
        case .voidWithoutReason: ("Voiding a ticket needs a reason, kept in the audit trail.", "Give --reason \"...\".")
        case .alreadyVoided: ("The ticket was already voided.", "Nothing to do: its code no longer opens the door.")
        case .reasonNotOneLine: ("A reason (for a void or a correction) is one line of at most 160 characters, without control characters.",
                                 "Say why in a few plain words.")
        case .voidedTicket: ("Staff voided this ticket: its code no longer opens the door.", "The customer takes a new ticket; staff may explain why.")
        case .leftTheLine: ("Its holder gave this place up from their phone (left the line): its code no longer opens the door.",
                            "They join the line again from their phone, or take a ticket at the totem.")
        case .numbersUsedUp: ("A lane has used all its 65,535 numbers today.", "Numbers start again with the next business day.")
        case .unreadableCode: ("The code read at the door is not a CLup ticket code.", "Scan the ticket's QR code again, flat and still.")
        case .forgedCode: ("The code's signature does not match: not a genuine ticket.", "Refuse entry; staff may check the ticket.")
        case .otherStoresTicket: ("A ticket of another store.", "The customer goes to the store that issued it.")
        case .unknownTotemKey: ("A ticket of a totem whose key this totem does not know.",
                                "Put that totem's key under [keys] (or let the hub send it).")
        case .expiredTicket: ("The ticket's validity has run out.", "The customer takes a new ticket.")
        case .unreadableScan: ("The door reader could not read a whole code.", "Scan again; check the reader if it keeps happening.")
        case .bookingCancelled: ("A genuine booking that was cancelled (as far as this door has heard from the hub).", "The customer books again, or takes a ticket at the totem.")
        case .otherTotemsTicket: ("A genuine ticket of another totem that this door has not heard is called (from the hub).", "The customer uses that totem's door, or waits to be called.")
        case .correctionBelowZero: ("The correction would make the count of people inside negative.", "Correct by less, or set the count.")
        case .correctionWithoutReason: ("A correction needs a reason.", "Give --reason.")
        case .zeroCorrection: ("The correction changes nothing.", "Nothing to do.")
        case .correctionTooLarge: ("A correction changes the count by at most 10,000.", "Set the count you counted with --set.")
        case .countOutOfRange: ("A count of people inside is between 0 and 100,000.", "Give the number you counted.")
        case .noSuchPrinterQueue: ("CUPS has no printer queue of that name.", "Check printer.queue and `lpstat -p`.")
        case .printServerUnreachable: ("cupsd does not answer.", "Check that CUPS runs (`systemctl status cups`).")
        case .outOfPaper: ("The printer is out of paper.",
                           "Load a paper roll (with a port read, tickets start again by themselves); `clupctl reprint` any ticket it failed.")
        case .printJobRefused: ("cupsd refused the print job.", "See the printer's state in `clupctl printer` and the CUPS error log.")
        case .printerNotReady: ("The printer's port says it cannot print: off line or in error (a cover open, a jam, the cutter).",
                                "Close the cover, clear the jam or put the printer on line; `clupctl printer` shows its lines.")
        case .paperCountUnsaved: ("The count of the paper on the roll could not be kept; the new roll was not taken.",
                                  "Free space in the state directory (`df -h /var/lib/clup`), then say `clupctl paper new-roll` again.")
        case .printJobEnded: ("The print job ended without printing.", "See the printer's state reasons in `clupctl printer`.")
        case .printTimedOut: ("The printer did not finish the ticket in time.", "Check the printer's cable and power; reprint the ticket.")
        case .ticketLayoutFailed: ("The ticket could not be laid out.", "Check the printer profile and the spool's free space (/run/clup/spool under systemd).")
        case .codeTooLongForQR: ("The text does not fit a QR code.", "Report it: a ticket code is 119 characters.")
        case .badPrinterProfile: ("The printer profile cannot be used.", "Fix the profile file named.")
        case .notADatabase: ("The database file is not a readable SQLite database.", "Move it aside (keep it for support) to start fresh.")
        case .foreignDatabase: ("The database file belongs to another program.", "Point clupd at its own state directory.")
        case .databaseUnopenable: ("The database file cannot be opened.", "Check the state directory's owner and permissions.")
        case .damagedDatabase: ("The database file is damaged (PRAGMA quick_check).",
                                "Keep it for the support desk; move it aside to start fresh.")
        case .diskFull: ("The disk holding the database is full; nothing was recorded.", "Free space in the state directory.")
        case .noCopyBeforeMigrating: ("The database was not migrated to the new version: no copy of it could be taken first.",
                                      "Free space in the state directory (a copy takes as much as the database) and make its backups folder writable by clupd's user, then systemctl restart clupd; or reinstall the previous version, which reads the file as it is.")
        case .unreadableRow: ("A stored row cannot be read; the day was rebuilt from the event log.", "Nothing to do; tell support if it repeats.")
        case .eventOfAnotherDay: ("An event of one business day was committed with another day's state.", "Report it: a bug.")
        case .unreadableEvent: ("A stored event cannot be read and was left out.", "Tell support; the event is still in the database.")
        case .ticketNotRecorded: ("The ticket could not be recorded, so it was not printed.", "See the reason; the customer may try again.")
        case .passageNotRecorded: ("A turnstile passage could not be recorded.", "See the reason; correct the count if needed.")
        case .restartedBeforePrinting: ("clupd stopped before the ticket reached the printer.", "The customer takes a new ticket.")
        case .printJobNotRecorded: ("The print job could not be recorded, so it was cancelled.", "See the reason; the customer may try again.")
        case .turnstileDidNotOpen: ("The turnstile's release output failed.", "Check the turnstile's wiring; the customer may scan again.")
        case .printJobForgotten: ("cupsd no longer knows the ticket's print job.", "Reprint the ticket.")
        case .socketInUse: ("Another clupd already answers on the control socket.", "Stop it first, or give another --socket.")
        case .cannotListen: ("The control socket cannot be opened.", "Check the socket's folder and permissions.")
        case .permissionDenied: ("Not root, clupd's user or a member of the control group.", "Run as one of them (see control.group).")
        case .noRequest: ("The client sent no request, or one too long.", "Use clupctl.")
        case .requestNotUnderstood: ("Not a request this clupd understands.", "Use a clupctl of the same version as clupd.")
        case .realDevice: ("The device is a real one; `clupctl sim` drives only simulated devices.", "Use the device itself.")
        case .nothingDrawnYet: ("Nothing has been drawn on the screen yet.", "Try again in a moment.")
        case .nobodyCalled: ("No ticket was called.", "See `clupctl queue`.")
        case .notATicketNumber: ("Not a ticket number (like A-017).", "Give the number as printed.")
        case .stopping: ("clupd is stopping.", "Try again once it runs.")
        case .tooManyConnections: ("Too many clients are connected to the control socket.", "Try again; look for a client that hangs.")
        case .socketPathTooLong: ("The socket's path is too long for a Unix socket (107 bytes).", "Use a shorter path.")
        case .internalError: ("An error clupd did not expect.", "Report it with clupd's log.")
        case .daemonNotRunning: ("clupd does not answer on its control socket.", "Start it (`systemctl start clupd`) or give the right --socket.")
        case .replyNotUnderstood: ("clupd sent a reply this clupctl does not understand.", "Use a clupctl of the same version as clupd.")
        case .noSuchButton: ("The screen shown has no button of that name.", "See the screen's buttons with `clupctl screen`; the screen may have changed meanwhile.")
        case .badEmployee: ("The staff number or the PIN cannot be used.", "A staff number is 1 to 8 digits; a PIN 4 to 12, not one digit repeated nor consecutive.")
        case .unknownEmployee: ("No employee has that staff number at this totem.", "See them with `clupctl employee list`.")
        case .loginRequired: ("The command changes the totem: it needs a technician logged in.",
                              "Log in with `clupctl login NAME` (or `login` in the shell); root adds technicians with `clupctl technician add NAME`.")
        case .sessionEnded: ("The technician's session ended (idle too long, logged out, or clupd restarted).", "Log in again.")
        case .nameLocked: ("Too many wrong secrets for this technician name: it is locked for a while.",
                           "Wait until the time given, or have root set a new secret (`clupctl technician secret NAME`).")
        case .wrongSecret: ("The technician name or secret is wrong.", "Try again; after 5 failures the name is locked.")
        case .badTechnician: ("Not a valid technician name or secret.",
                              "A name is 2 to 32 letters, digits, dot, dash or underscore; a secret is 10 to 128 characters with at least 4 different ones, and does not contain the name.")
        case .technicianExists: ("A technician of that name already exists.", "Give them a new secret with `clupctl technician secret NAME`.")
        case .unknownTechnician: ("No technician has that name here.", "See them with `clupctl technician list`.")
        case .deviceBusy: ("The device is in use: a customer is at the totem, or another test or calibration holds it.",
                           "Wait until the customer has gone (or add --force), or finish the other test.")
        case .selfTestTimedOut: ("The self-test waited for the device and nothing came.",
                                 "Check the device's cable and its node under /dev/clup, then test again (--timeout for more time).")
        case .workTimedOut: ("clupd did not finish the request in the time allowed.", "Try again; see `clupctl logs` if it keeps happening.")
        case .employeeExists: ("An employee with that staff number is already there.", "Give them a new PIN with `clupctl employee pin NUMBER`.")
        case .badConfiguration: ("The configuration file cannot be used.", "Fix the key and line named; clupd says what it expected.")
        case .configurationNotReloaded: ("The configuration file changed but cannot be used; the one in force stays.",
                                         "Fix the file and reload again.")
        case .restartNeeded: ("Some changed keys take effect only when clupd restarts.", "Restart clupd when the store allows.")
        case .stateDirectoryUncreatable: ("The state directory cannot be created.", "Check the parent folder's permissions.")
        case .lockUnopenable: ("The state directory's lock file cannot be opened.", "Check the state directory's permissions.")
        case .stateDirectoryInUse: ("Another clupd uses the state directory.", "Stop the other clupd.")
        case .keyUnreadable: ("The totem's key file cannot be read.", "Check its permissions.")
        case .keyReadableByOthers: ("The totem's key file is readable by others: anyone could forge tickets.", "chmod 600 it.")
        case .notAKey: ("The totem's key file is not a 32-byte Ed25519 key.",
                        "Restore it from backup: a new key voids every printed ticket.")
        case .keyUncreatable: ("The totem's key file cannot be created.", "Check the state directory's permissions.")
        case .keyUnwritable: ("The totem's key file cannot be written.", "Check the disk.")
        case .keySealedElsewhere: ("A sealed key cannot be opened on this machine: it was sealed to another TPM or host key.",
                                   "Restart clupd once (a TPM not ready at boot); if the disk was moved or the TPM cleared or replaced, "
                                   + "a technician re-enrols the totem: clupd enrol --again.")
        case .keyNotSealed: ("The totem's key is not where it should be: not sealed, or not opened by systemd for clupd.",
                             "Start clupd with systemctl (clup-keys.service seals and checks the keys first); the message says which key.")
        case .keySealingFailed: ("systemd-creds cannot seal or open the totem's key.", "Run it as root; the message says why it failed.")
        case .badRecording: ("An evemu recording cannot be read.", "Check the file named.")
        case .noReleaseOutput: ("The turnstile has no release output configured.", "Set hardware.turnstile_release.")
        case .releaseOutputFailed: ("The turnstile's release output cannot be driven.", "Check the GPIO line or value file named.")
        case .displayFailed: ("The display cannot be used.", "Check the framebuffer named under [hardware].")
        case .speechDataMissing: ("espeak-ng's voice data is missing.", "Install espeak-ng-data.")
        case .noVoiceForLanguage: ("espeak-ng has no voice for the language.", "Use a language of tickets.languages it has.")
        case .synthesisFailed: ("espeak-ng could not make the speech.", "Report it with the text.")
        case .speechHelperFailed: ("The speech helper (clup-speak) could not run or gave no speech.",
                                   "Check that clup-speak is installed in /usr/libexec/clup-totem; the message says what failed.")
        case .notAWAVFile: ("Not a 16-bit mono PCM WAV file.", "Check the file.")
        case .speakerUnopenable: ("The speaker cannot be opened.", "Check hardware.speaker and that the sound card is there.")
        case .alsaConfiguration: ("ALSA's configuration cannot be read.", "Check the ALSA configuration.")
        case .speakerRefusesFormat: ("The speaker does not take 16-bit mono sound.", "Use a plughw: device.")
        case .playingFailed: ("Playing on the speaker failed.", "Check the speaker's cable.")
        case .usbUnreadable: ("The USB bus cannot be read.", "Check that /dev/bus/usb is there.")
        case .badUSBProfiles: ("The known USB models file cannot be used.", "Fix the file named.")
        case .noHotplug: ("This libusb has no hotplug support.", "Nothing to do: devices are listed on request.")
        case .hotplugFailed: ("USB hotplug could not be registered.", "Check /dev/bus/usb and udev.")
        case .drawingFailed: ("Drawing a screen or a ticket failed.", "Report it with clupd's log.")
        case .calibrationDegenerate: ("The four touches do not span the screen (the same spot, or in a line).",
                                      "Calibrate again and touch the centre of each target as it appears.")
        case .calibrationTooFarOff: ("The calibration would still miss a target by more than allowed.",
                                     "Calibrate again, touching each target's centre; check the panel's mounting if it persists.")
        case .calibrationNotStarted: ("No calibration is in progress (it ended, or its 60 s lease ran out).", "Run `clupctl calibrate` again.")
        case .offThePanel: ("The simulated tap is off the panel.", "Tap within the screen's size.")
        case .enrolmentCodeUnknown: ("The hub knows no such enrolment code.", "Check the code, or have a new one made (`clup-hub enrolment-code`).")
        case .enrolmentCodeUsed: ("The enrolment code was already used: a code enrols one totem once.", "Have a new code made.")
        case .enrolmentCodeExpired: ("The enrolment code has expired.", "Have a new code made.")
        case .unknownDevice: ("The hub knows no totem of that device id.", "Enrol the totem (`clupd enrol`).")
        case .revokedDevice: ("The totem was revoked at the hub: it may no longer sync.", "Enrol it again with a new code if it should.")
        case .badSignature: ("The request's signature is not the totem's.", "Check that the totem's device key is the one it enrolled with.")
        case .replayedRequest: ("The request was already received once (a replay).", "Nothing to do: a genuine totem signs each request anew.")
        case .staleRequest: ("The request was signed too far from the hub's time.", "Check the totem's clock; it corrects for the hub's time on the next try.")
        case .badHubRequest: ("The request is malformed, too large, or not what the API takes.", "Check the request against the hub's OpenAPI document.")
        case .hubDatabaseUnavailable: ("The hub cannot reach PostgreSQL.", "Check that PostgreSQL runs and [database] in clup-hub.toml.")
        case .unknownStore: ("The hub has no such store.", "Create it first (`clup-hub store create`).")
        case .letterTaken: ("Another totem of the store already has that letter.", "Choose a free letter, or revoke the old totem.")
        case .hubKeysUnusable: ("The hub's certificate or key files cannot be used.", "Run `clup-hub init`, or restore the files named.")
        case .hubInternalError: ("The hub failed on something it did not expect.", "Report it with clup-hub's log.")
        case .storeExists: ("A store with that id exists already.", "Use another id.")
        case .hubDatabaseError: ("PostgreSQL refused the hub's statement.", "Report it with clup-hub's log.")
        case .migrationMissing: ("The hub's database schema is older than this clup-hub.", "Run `clup-hub migrate`.")
        case .unknownBooking: ("No booking of that store has that number and customer reference.", "Check the number and the reference the booking was made with.")
        case .bookingSlotFull: ("Every booking place of that slot is taken (the slot's share of the capacity).", "Choose another slot; GET the store's slots for the free ones.")
        case .bookingClosed: ("That slot cannot be booked or cancelled any more: its window has passed, or it is not one of the store's slots that day.", "Choose a later slot among the store's slots.")
        case .unknownHubEmployee: ("The store has no employee with that staff number at the hub.", "See them with `clup-hub employee list STORE`.")
        case .hubEmployeeExists: ("The store has an employee with that staff number at the hub already.", "Give them a new PIN with `clup-hub employee pin STORE NUMBER`.")
        case .releaseRefused: ("The chain's repository does not take this file: not a clup-totem package, or a version it holds already with other contents.",
                               "Build the package again with a new version (`scripts/package`) and add that.")
        case .releaseToolFailed: ("aptly or gpg, which keep and sign the chain's repository, is missing or failed.",
                                  "Install the clup-hub package's dependencies (aptly, gnupg); the message says what the tool printed.")
        case .doorNotHeard: ("The door's totem has not reached the hub lately: its line may be moving without the hub knowing, so it takes no places from phones.",
                             "Book a slot, join another door or store; the technician checks the totem's network (`clupctl sync`).")
        case .alreadyInLine: ("That customer reference holds a place in the store's line already.", "Show or leave that place; one place per store at a time.")
        case .joinLimit: ("Too many places: this reference's for the day, one network's in a minute or at once, or the store's taken from phones and still waiting.", "Book a slot, or try again later.")
        case .unknownPlace: ("The store has no place in its line with that number taken with that reference.", "Check the number and the reference it was taken with.")
        case .placeOver: ("That place is over (used at the door, a no-show, or voided): there is nothing to leave.", "Nothing to do; join again for a new place.")
        case .storeClosed: ("The store is closed now: its line takes no places.", "Join when it opens, or book a slot.")
        case .idempotencyKeyReused: ("That Idempotency-Key came with another request before (another route or body): the hub keeps each key's first request and answer for 24 hours.",
                                     "Send the same request again with the same key, or a new request with a new key.")
        case .panelForbidden: ("The panel refused: another store than the manager's, or a form that did not come from the manager's own page (CSRF).", "Open the page again from the panel; a store manager manages their own store only.")
        case .bookingsOff: ("The hub takes no bookings: no app token is configured.", "Set [hub] app_token (32 characters or more) and restart clup-hub.")
        case .hubUnreachable: ("The hub cannot be reached (no answer, refused, or TLS failed).", "Nothing is lost: the totem keeps working and retries; check the network.")
        case .hubAnswerUnreadable: ("The hub's answer is not what the protocol says.", "Check that the hub and totem versions match.")
        case .hubError: ("The hub answered with an error status.", "The totem retries; check clup-hub's log.")
        case .notEnrolled: ("This totem is not enrolled at a hub.", "Enrol it: `clupd enrol --hub URL --code CODE --ca FILE`.")
        case .enrolmentUnreadable: ("The totem's enrolment file cannot be used.", "Enrol the totem again.")
        case .hubCertificateUnusable: ("The hub's CA certificate cannot be read.", "Use the PEM file `clup-hub init` wrote (ca.pem).")
        case .alreadyEnrolled: ("This totem is already enrolled.", "Remove enrolment.json from the state directory to enrol it again.")
        case .databaseOfAnotherDevice: ("The totem's database holds events of another device id.", "Move the database aside before enrolling, or enrol as that totem.")
        case .noReleaseKey: ("The totem's enrolment holds no release key: its hub had none when it enrolled, or the key it sent is unusable.",
                             "Run `clup-hub init` at the hub (it makes the key), then enrol the totem again.")
        case .releaseKeyChanged: ("The enrolment's release key or hub CA differs from the one apt already trusts on this totem: refused.",
                                  "If the chain really changed its key, remove the old one from /etc/apt/keyrings by hand, knowingly.")
        case .updateSourceUnwritable: ("The apt source for the chain's repository could not be written.", "Run it as root; the message says which file.")
        case .updateStepFailed: ("A step of the totem's software update failed (apt, dpkg or systemctl).",
                                 "The message says which and what it printed; `journalctl -u clup-update` has the run.")
        case .releaseNotVouched: ("No release manifest signed by a release key this totem trusts vouches for the package: it was signed by the hub alone, altered after signing, or the manifest is missing or damaged. Nothing was installed.",
                                  "The totem keeps its version. The release manager signs a manifest of the release (`clup-release sign`) and the hub adds it (`clup-hub release vouch`); if the package was altered, find out how.")
        case .releaseManifestExpired: ("The release manifest's expiry has passed: a hub serving an old manifest is frozen, and nothing is installed on its word.",
                                       "The release manager signs a fresh manifest of the release (`clup-release sign`) and the hub adds it (`clup-hub release vouch`).")
        case .releaseDowngrade: ("The release is older than the one installed, and its signed manifest does not allow going down from it (a rollback to a known-vulnerable release).",
                                 "Roll out a newer release; if going down is really wanted, the release manager signs a manifest with `--allow-downgrade-from`.")
        case .releaseSigningKeyUnusable: ("The release signing key or its public half cannot be used: a missing or damaged file, or the wrong passphrase.",
                                          "Check the file and the passphrase; `clup-release keygen` makes a new key (totems trust a new key only through a manifest signed by the old one).")
        }
    }

    public var meaning: String { entry.meaning }
    public var action: String { entry.action }

    /// The whole registry as a Markdown table, as `docs/errors.md` holds it.
    public static var markdownCatalog: String {
        var lines = ["# Error codes", "",
                     "Every error a person can see has one of these codes. Generated from `ErrorCode` "
                         + "(`Sources/CLupCore/Errors/ErrorCode.swift`); `clupctl errors CODE` shows one.", "",
                     "| code | meaning | what to do |", "|---|---|---|"]
        for code in allCases {
            let cells = [code.rawValue, code.meaning, code.action].map { $0.replacingOccurrences(of: "|", with: "\\|") }
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
