import CSndfile

/// Small helpers around libsndfile's C API shared by the reader and the writer.
enum Sndfile {
    /// libsndfile's message for `handle`'s last error, or for the last failed `sf_open` when
    /// `handle` is nil.
    static func message(_ handle: OpaquePointer?) -> String {
        guard let text = sf_strerror(handle) else { return "unknown libsndfile error" }
        return String(cString: text)
    }
}
