#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory from `mkdtemp`, removed with its files when the value is released.
final class TemporaryDirectory {
    let path: String
    private var created: [String] = []

    init() {
        var template = Array("/tmp/iaa-audiofiles-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) } != nil
        }
        precondition(made, "mkdtemp failed")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A path for `name` inside the directory, deleted with it.
    func file(_ name: String) -> String {
        let file = path + "/" + name
        created.append(file)
        return file
    }

    deinit {
        for file in created { unlink(file) }
        rmdir(path)
    }
}
