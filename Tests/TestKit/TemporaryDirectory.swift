import Foundation

/// A new private (0700) directory under the system's temporary folder, named after `label`;
/// the caller removes it.
public func makeTemporaryDirectory(_ label: String = "tests") throws -> String {
    // Short names: a control socket inside must fit a socket path's 107 bytes.
    let folder = NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
    var template = Array((folder + "/iaa-\(label)-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } != nil }
    guard made else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: String(cString: template)]) }
    return String(cString: template)
}

/// A new private directory removed with everything in it when the value is released: hold it
/// (`withExtendedLifetime`, or a use after the last file operation) for as long as files in it are used.
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
