/// A failure to open, read, write or close a sound file, naming the file and libsndfile's reason.
///
/// `description` reads like a compiler diagnostic, `PATH: error[CODE]: MESSAGE`, followed by
/// a `hint:` line when there is a fix to suggest, so a user learns what failed, where, and why.
public struct AudioFileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong; stable names for JSON replies and tests.
    public enum Code: String, Sendable, Hashable {
        /// libsndfile could not open the file (missing, unreadable, unwritable, not audio).
        case openFailed
        /// The extension, sample format or channel layout is not one this file can hold.
        case unsupportedFormat
        /// A caller passed a count or buffer that does not fit (too few samples, wrong channels).
        case invalidArgument
        case readFailed
        case writeFailed
        case closeFailed
        /// The file was used after ``SoundFileWriter/close()`` or ``SoundFileReader/close()``.
        case closed
    }

    public let code: Code
    /// The file the operation was about.
    public let path: String
    /// What failed, ending with libsndfile's own message when it had one.
    public let message: String
    /// How to fix it, when there is something to suggest.
    public let hint: String?

    public init(_ code: Code, path: String, message: String, hint: String? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.hint = hint
    }

    public var description: String {
        let head = "\(path): error[\(code.rawValue)]: \(message)"
        guard let hint else { return head }
        return head + "\n  hint: " + hint
    }
}
