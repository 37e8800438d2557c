/// What a device backend needs from the daemon's event loop: to be told when its file
/// descriptor is readable, and timers (to retry a device that went away).
public protocol DeviceRunLoop: AnyObject {
    func watch(_ fd: Int32, handler: @escaping () -> Void)
    func unwatch(_ fd: Int32)
    func after(_ seconds: Double, run handler: @escaping () -> Void)
}
