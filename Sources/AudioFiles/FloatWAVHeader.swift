#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Completes the `fmt ` chunk of a float WAV file that libsndfile has closed.
///
/// The WAVE format asks every format but PCM for an extension size (`cbSize`) in its `fmt `
/// chunk, 18 bytes in all; libsndfile writes float as 16 bytes, and sox, soxi and other readers
/// warn "wave header missing extended part of fmt chunk" on every such file (WAVE_FORMAT_EXTENSIBLE
/// does not help: sox 14.4 warns there too). This adds `cbSize = 0`: the chunk grows by two
/// bytes, the RIFF size with it, and what follows moves two bytes on, in place.
enum FloatWAVHeader {
    static let chunkBytes = 1 << 20

    static func addExtensionSize(path: String) throws(AudioFileError) {
        let fd = open(path, O_RDWR)
        guard fd >= 0 else {
            throw AudioFileError(.closeFailed, path: path, message: "cannot reopen the file to finish its header")
        }
        defer { Glibc.close(fd) }
        var header = [UInt8](repeating: 0, count: 12)
        guard pread(fd, &header, 12, 0) == 12, header[0..<4] == [0x52, 0x49, 0x46, 0x46] else { return }
        let fileSize = Int(lseek(fd, 0, SEEK_END))
        // Find the `fmt ` chunk: a 16-byte one with format tag 3 (IEEE float) is what we complete.
        var offset = 12
        var chunk = [UInt8](repeating: 0, count: 10)
        while offset + 8 <= fileSize {
            guard pread(fd, &chunk, 10, off_t(offset)) >= 8 else { return }
            let size = Int(chunk[4]) | Int(chunk[5]) << 8 | Int(chunk[6]) << 16 | Int(chunk[7]) << 24
            if chunk[0..<4] == [0x66, 0x6D, 0x74, 0x20] {   // "fmt "
                guard size == 16, chunk[8] == 3, chunk[9] == 0 else { return }
                try insertTwoBytes(fd, at: offset + 8 + 16, fileSize: fileSize, path: path)
                try writeLittleEndian(fd, 18, at: offset + 4, path: path)
                let riffSize = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
                try writeLittleEndian(fd, UInt32(riffSize + 2), at: 4, path: path)
                return
            }
            offset += 8 + size + (size & 1)
        }
    }

    /// Moves the bytes from `position` to the end two bytes on (from the end backwards, so
    /// nothing is overwritten before it is read) and writes two zero bytes at `position`.
    private static func insertTwoBytes(_ fd: Int32, at position: Int, fileSize: Int, path: String) throws(AudioFileError) {
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        var end = fileSize
        while end > position {
            let start = max(position, end - chunkBytes)
            let count = end - start
            let moved = buffer.withUnsafeMutableBytes { bytes -> Bool in
                pread(fd, bytes.baseAddress, count, off_t(start)) == count
                    && pwrite(fd, bytes.baseAddress, count, off_t(start + 2)) == count
            }
            guard moved else {
                throw AudioFileError(.closeFailed, path: path, message: "cannot finish the float WAV header",
                                     hint: "check the free space on the disk")
            }
            end = start
        }
        let zero: [UInt8] = [0, 0]
        guard pwrite(fd, zero, 2, off_t(position)) == 2 else {
            throw AudioFileError(.closeFailed, path: path, message: "cannot finish the float WAV header")
        }
    }

    private static func writeLittleEndian(_ fd: Int32, _ value: UInt32, at position: Int, path: String) throws(AudioFileError) {
        let bytes: [UInt8] = [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
        guard pwrite(fd, bytes, 4, off_t(position)) == 4 else {
            throw AudioFileError(.closeFailed, path: path, message: "cannot finish the float WAV header")
        }
    }
}
