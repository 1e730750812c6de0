import Foundation
import Synchronization

/// Every directory `makeTemporaryDirectory` made, removed when the test process exits: a test
/// that fails before its own clean-up (or never had one) leaves nothing behind.
private let madeDirectories = Mutex<[String]>([])
private let removeAtExit: Void = {
    atexit {
        for path in madeDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}()

/// A new private (0700) directory under the system's temporary folder, named after `label`;
/// removed when the test process exits, or earlier by the caller.
public func makeTemporaryDirectory(_ label: String = "tests") throws -> String {
    _ = removeAtExit
    // Short names: a control socket inside must fit a socket path's 107 bytes.
    let folder = NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
    var template = Array((folder + "/iaa-\(label)-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } != nil }
    guard made else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: String(cString: template)]) }
    let path = String(cString: template)
    madeDirectories.withLock { $0.append(path) }
    return path
}

/// A new private directory removed with everything in it when the value is released (or at exit):
/// hold it (`withExtendedLifetime`, or a use after the last file operation) while files in it are used.
public final class TemporaryDirectory {
    public let path: String

    public init(_ label: String = "tests") throws {
        path = try makeTemporaryDirectory(label)
    }

    /// A path for `name` inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
