import CLupCore

/// The QR reader at the door: delivers each code it read, or why it could not.
///
/// Implementations call `onRead` on the daemon's event loop.
public protocol DoorReader: AnyObject {
    var health: DeviceHealth { get }
    var onRead: ((WedgeDecoder.Output) -> Void)? { get set }
}
