internal import CMicroHTTPD
import Foundation

/// The bytes of one response body, kept in memory and handed to libmicrohttpd as they are.
///
/// Immutable: the bytes are copied once, in `init`, into memory this object owns and frees in `deinit`.
/// A body of 64 KiB or more lives in an anonymous in-memory file (`memfd_create`, mapped into the
/// process): each response sends it with `sendfile(2)` from a duplicate of that file's descriptor, so the
/// kernel reads the pages itself and the process copies nothing per request. A smaller body (or one whose
/// file could not be made) is plain memory that libmicrohttpd sends from, retaining the body until the
/// response is done. Thread-safety: nothing changes after `init`.
public final class HTTPBody: @unchecked Sendable {
    /// The body with no bytes.
    public static let empty = HTTPBody(Data())

    /// Bodies from this size on are kept in a memory file and sent with sendfile(2).
    static let fileThreshold = 64 * 1024

    /// The owned bytes (at least one byte, so that the pointer is never null): the file's mapping, or memory
    /// from `allocate`.
    let bytes: UnsafeMutableRawBufferPointer
    /// The memory file holding the bytes, or -1.
    let file: Int32

    /// The number of bytes.
    public let count: Int

    /// Copies `data` into memory the body owns.
    public init(_ data: Data) {
        count = data.count
        if data.count >= Self.fileThreshold, let (file, mapping) = Self.mappedFile(size: data.count) {
            self.file = file
            bytes = mapping
        } else {
            file = -1
            bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        }
        data.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<data.count]))
    }

    deinit {
        if file >= 0 {
            munmap(bytes.baseAddress, bytes.count)
            close(file)
        } else {
            bytes.deallocate()
        }
    }

    /// The bytes as `Data`, without a copy: the returned value keeps this body alive.
    public var data: Data {
        guard count > 0, let base = bytes.baseAddress else { return Data() }
        return Data(
            bytesNoCopy: base, count: count, deallocator: .custom { [self] _, _ in withExtendedLifetime(self) {} })
    }

    /// A memory file of `size` bytes and its shared read-write mapping, or nil.
    private static func mappedFile(size: Int) -> (Int32, UnsafeMutableRawBufferPointer)? {
        let file = gics_memory_file("graph-ics-body", size)
        guard file >= 0 else { return nil }
        let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0)
        guard let mapping, mapping != MAP_FAILED else {
            close(file)
            return nil
        }
        return (file, UnsafeMutableRawBufferPointer(start: mapping, count: size))
    }
}

/// One request as libmicrohttpd parsed it, handed to the server's handler.
public struct HTTPServerRequest: Sendable {
    /// The method as received (`GET`, `HEAD`, …).
    public var method: String
    /// The path as received: not percent-decoded, without the query.
    public var path: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// The request's header fields in the order received, names as the client spelled them.
    public var headers: [(name: String, value: String)]
    /// The client's address and port: `127.0.0.1:54321`, `[::1]:54321`; empty when unknown.
    public var remoteAddress: String
    /// The request's body (at most the configuration's `requestBodyLimit` bytes); empty without one.
    public var body: Data

    public init(
        method: String, path: String, version: String = "HTTP/1.1", headers: [(name: String, value: String)] = [],
        remoteAddress: String = "", body: Data = Data()
    ) {
        self.method = method
        self.path = path
        self.version = version
        self.headers = headers
        self.remoteAddress = remoteAddress
        self.body = body
    }

    /// The value of the first header field named `name` (compared case-insensitively), or nil.
    public func header(_ name: String) -> String? {
        headers.first { Self.sameName($0.name, name) }?.value
    }

    /// Whether two field names are equal ignoring ASCII case (field names are ASCII tokens).
    static func sameName(_ one: String, _ other: String) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        return one.utf8.count == other.utf8.count && zip(one.utf8, other.utf8).allSatisfy { lower($0) == lower($1) }
    }
}

/// What the handler answers: a status, header fields and a body.
///
/// libmicrohttpd adds `Content-Length` (the body's count; a `Content-Length` given here is ignored), `Date`
/// and `Connection`. For `HEAD` it sends the header fields, with the body's `Content-Length`, and no body.
public struct HTTPServerResponse: Sendable {
    /// The status code, 100…599 (anything else is sent as 500).
    public var status: Int
    /// Header fields to send, in this order. A field whose name or value contains a line break is left out.
    public var headers: [(name: String, value: String)]
    /// The body, sent from memory without a copy.
    public var body: HTTPBody

    public init(status: Int, headers: [(name: String, value: String)] = [], body: HTTPBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
