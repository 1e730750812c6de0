import CSndfile

/// How samples are stored in a file: 16- or 24-bit integers, or 32-bit floats.
///
/// Writers take `Float` samples in [−1, 1]; integer formats scale them and clip anything
/// outside that range rather than letting it wrap around.
public enum SampleFormat: String, Sendable, Hashable, CaseIterable {
    case pcm16, pcm24, float32

    /// libsndfile's subtype bits.
    var sndfileSubtype: Int32 {
        switch self {
        case .pcm16: Int32(SF_FORMAT_PCM_16)
        case .pcm24: Int32(SF_FORMAT_PCM_24)
        case .float32: Int32(SF_FORMAT_FLOAT)
        }
    }
}
