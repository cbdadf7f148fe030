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

extension POSIXFile {
    /// What a path names, as far as writing to it goes (`stat`, following symbolic links).
    public enum Kind: Equatable, Sendable {
        /// Nothing there yet (or a dangling symbolic link).
        case absent
        case regular
        case directory
        /// A character or block device, a FIFO, a socket: something written to, not replaced.
        case special
    }

    /// The kind of file at `path`, following symbolic links; nil with `errno` set when `stat` fails for
    /// another reason than the path not existing.
    public static func kind(of path: String) -> Kind? {
        var status = stat()
        guard stat(path, &status) == 0 else { return errno == ENOENT ? .absent : nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .special
        }
    }

    /// The target of the symbolic link at `path`, or nil when `path` is not one.
    public static func linkTarget(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
        var bytes = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &bytes, bytes.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: bytes[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The device and inode of the file at `path` (symbolic links followed), or of an open descriptor.
    public static func identity(of path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileIdentity(status)
    }

    public static func identity(ofDescriptor descriptor: Int32) -> FileIdentity? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return FileIdentity(status)
    }

    /// Which file a path or descriptor is: two names of one file have the same identity.
    public struct FileIdentity: Equatable, Sendable {
        public var device: UInt64
        public var inode: UInt64
        /// A regular file (the only kind an output replaces).
        public var isRegular: Bool

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            isRegular = status.st_mode & S_IFMT == S_IFREG
        }
    }
}

extension POSIXFile {
    /// A descriptor connected to the Unix stream socket at `path`, or -1 with `errno` set.
    public static func connectStreamSocket(_ path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            errno = ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            errno = code
            return -1
        }
        return descriptor
    }
}
