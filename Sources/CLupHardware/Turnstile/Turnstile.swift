import CLupCore

/// The door's turnstile: reports each passage and can unlock one.
///
/// Implementations call `onPassage` on the daemon's event loop, once per person.
public protocol Turnstile: AnyObject {
    var health: DeviceHealth { get }
    var onPassage: ((PassageDirection) -> Void)? { get set }
    /// Unlocks the turnstile for one passage.
    func release() throws
}
