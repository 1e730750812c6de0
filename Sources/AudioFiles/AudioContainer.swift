import CSndfile

/// The file type a writer produces, chosen from the path's extension.
public enum AudioContainer: String, Sendable, Hashable, CaseIterable {
    case wav, flac, aiff, ogg

    /// The extensions each container answers to, for messages and completion.
    public static let extensions = ["wav", "flac", "aiff", "aif", "ogg"]

    /// The container for `path`'s extension, case-insensitive; WAV when there is no extension,
    /// nil for an extension this library does not write (so `take.mp3` is refused, never
    /// silently written as WAV).
    public init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            self = .wav
            return
        }
        switch name[name.index(after: dot)...].lowercased() {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "aiff", "aif", "aifc": self = .aiff
        case "ogg", "oga": self = .ogg
        default: return nil
        }
    }

    /// What a render writes when no sample format is asked for: what the container holds best.
    /// WAV and AIFF keep the engine's float samples exactly; FLAC holds integers only (24-bit is
    /// its deepest); Ogg Vorbis has no sample format of its own.
    public var defaultSampleFormat: SampleFormat {
        switch self {
        case .wav: .float32
        case .aiff: .pcm24
        case .flac, .ogg: .pcm24
        }
    }

    /// libsndfile's format word for this container holding `sampleFormat`. Ogg is always
    /// Vorbis, which is lossy and has no sample format of its own.
    func sndfileFormat(_ sampleFormat: SampleFormat) -> Int32 {
        switch self {
        case .wav: Int32(SF_FORMAT_WAV) | sampleFormat.sndfileSubtype
        case .flac: Int32(SF_FORMAT_FLAC) | sampleFormat.sndfileSubtype
        case .aiff: Int32(SF_FORMAT_AIFF) | sampleFormat.sndfileSubtype
        case .ogg: Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        }
    }
}
