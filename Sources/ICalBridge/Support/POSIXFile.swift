import Foundation

/// The few POSIX file calls graph-ics's writers share, with `EINTR` retried and errors as messages.
public enum POSIXFile {
    /// `mkstemp` on `prefix` + `XXXXXX`: an open descriptor (mode 0600) and the file's path.
    public static func makeTemporary(prefix: String) -> (descriptor: Int32, path: String)? {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard descriptor >= 0 else { return nil }
        let path = template.withUnsafeBufferPointer { buffer -> String in
            guard let base = buffer.baseAddress else { return "" }
            return String(cString: base)
        }
        return (descriptor, path)
    }

    /// Writes all of `bytes` to `descriptor`.
    /// - Returns: nil on success, else the `errno` of the failed write.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var written = 0
        while written < bytes.count {
            let result = Foundation.write(descriptor, base + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += result
        }
        return nil
    }

    /// Reads exactly `bytes.count` bytes at `offset`.
    /// - Returns: nil on success, else the `errno` (or `EIO` for a short file).
    public static func readAll(_ descriptor: Int32, into bytes: UnsafeMutableRawBufferPointer, at offset: Int64)
        -> Int32?
    {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            let result = pread(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if result < 0, errno == EINTR { continue }
            if result < 0 { return errno }
            if result == 0 { return EIO }
            done += result
        }
        return nil
    }

    /// `strerror` as a Swift string.
    public static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
