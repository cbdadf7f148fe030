internal import CCurl
import Foundation

/// The settings `CurlTransport` applies to every transfer.
struct CurlTransferOptions: Sendable {
    var connectTimeout: Duration
    var timeout: Duration
    var maxResponseBytes: Int
    var userAgent: String
    /// Checked by the progress callback during the transfer; nil: no progress callback.
    var cancellation: RequestCancellation?
}

/// One libcurl easy handle (`CURL *`) and the transfers graph-ics runs on it, one at a time.
///
/// Owns the handle from `curl_easy_init` and frees it with `curl_easy_cleanup` in `deinit`. The handle
/// keeps its connection cache between transfers (`curl_easy_reset` leaves live connections alone), so a
/// handle used again talks over the same keep-alive connection. Not thread-safe and not `Sendable`:
/// `CurlTransport` lends each handle to one thread at a time.
///
/// Every transfer is set up from scratch: no signals (`CURLOPT_NOSIGNAL`), connect and total timeouts,
/// TLS peer and host verification always on, HTTP/2 over TLS when the server offers it, every content
/// encoding libcurl can decode, no redirects followed, only `http` and `https`, proxies from the
/// environment (`https_proxy`, `no_proxy`, …) except for loopback hosts. Never `CURLOPT_FAILONERROR`:
/// Graph's error JSON comes in 4xx and 5xx bodies.
///
/// Sendable by hand: it wraps a libcurl easy handle, which may move between threads but is used by one
/// thread at a time (``CurlTransport`` hands it out from its pool and takes it back).
final class CurlEasyHandle: @unchecked Sendable {
    /// `curl_global_init(CURL_GLOBAL_DEFAULT)`, run once (a lazily initialised static is thread-safe)
    /// before the first `curl_easy_init`.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    private let handle: UnsafeMutableRawPointer

    /// Creates a handle; throws when libcurl cannot initialise.
    init() throws {
        let initResult = Self.globalInit
        guard initResult == CURLE_OK else {
            throw CurlError.from(initResult, host: "(none)", detail: "curl_global_init failed", redacting: [])
        }
        guard let handle = curl_easy_init() else {
            throw CurlError(
                code: .other(Int(CURLE_FAILED_INIT.rawValue)), host: "(none)",
                message: "libcurl could not create a handle", curlCode: Int(CURLE_FAILED_INIT.rawValue))
        }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// Sends `request` to `host` (its URL's host, already checked by `CurlTransport`) with
    /// `curl_easy_perform` and returns the final response.
    func perform(_ request: HTTPRequest, host: String, loopback: Bool, options: CurlTransferOptions) throws
        -> HTTPResponse
    {
        // Whatever this transfer set (pointers to the buffers freed below included) is cleared before the
        // handle goes back to the pool; connections and caches stay.
        defer { curl_easy_reset(handle) }

        let state = TransferState(limit: options.maxResponseBytes, cancellation: options.cancellation)
        let headerList = CurlHeaderList()
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        let bodyBytes = request.body ?? Data()
        let bodyBuffer = UnsafeMutableRawPointer.allocate(byteCount: max(bodyBytes.count, 1), alignment: 1)
        defer { bodyBuffer.deallocate() }
        bodyBytes.copyBytes(to: bodyBuffer.assumingMemoryBound(to: UInt8.self), count: bodyBytes.count)

        try setUp(request, host: host, loopback: loopback, options: options, headerList: headerList)
        try check(gics_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), host: host)
        try configureMethod(request, body: bodyBuffer, count: bodyBytes.count, host: host)
        try installCallbacks(state, host: host)

        let result = withExtendedLifetime((state, headerList)) {
            curl_easy_perform(handle)
        }
        if state.tooLarge {
            throw CurlError.responseTooLarge(host: host, limit: options.maxResponseBytes)
        }
        if result == CURLE_ABORTED_BY_CALLBACK, state.cancellation?.isCancelled == true {
            throw RequestCancelled(host: host)
        }
        guard result == CURLE_OK else {
            throw CurlError.from(
                result, host: host, detail: String(cString: errorBuffer),
                redacting: [request.url.query ?? "", request.url.absoluteString])
        }
        var status = 0
        try check(gics_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status), host: host)
        return HTTPResponse(status: status, headers: state.headers, body: state.body)
    }

    // MARK: Setting up one transfer

    private func setUp(
        _ request: HTTPRequest, host: String, loopback: Bool, options: CurlTransferOptions,
        headerList: CurlHeaderList
    ) throws {
        try setString(CURLOPT_URL, request.url.absoluteString, host: host)
        try setString(CURLOPT_PROTOCOLS_STR, "http,https", host: host)
        try setLong(CURLOPT_NOSIGNAL, 1, host: host)
        try setLong(CURLOPT_FOLLOWLOCATION, 0, host: host)
        try setLong(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout), host: host)
        try setLong(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout ?? options.timeout), host: host)
        try setLong(CURLOPT_SSL_VERIFYPEER, 1, host: host)
        try setLong(CURLOPT_SSL_VERIFYHOST, 2, host: host)
        try setLong(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS), host: host)
        try setString(CURLOPT_ACCEPT_ENCODING, "", host: host)
        try setLong(CURLOPT_TCP_KEEPALIVE, 1, host: host)
        try check(
            gics_curl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maxResponseBytes)),
            host: host)
        if loopback {
            // A proxy cannot reach this machine's loopback interface.
            try setString(CURLOPT_NOPROXY, "*", host: host)
        }
        if request.header("User-Agent") == nil {
            try setString(CURLOPT_USERAGENT, options.userAgent, host: host)
        }

        for (name, value) in request.headers {
            guard Self.isToken(name) else {
                throw CurlError.invalidRequest(host: host, "a header name is not an HTTP token")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw CurlError.invalidRequest(host: host, "the value of header \(name) contains a line break")
            }
            // `Name;` is libcurl's spelling of a header with an empty value (`Name:` would remove it).
            headerList.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // No `Expect: 100-continue` round trip before large bodies.
        if request.header("Expect") == nil {
            headerList.append("Expect:")
        }
        // libcurl would label a body without a type as a form; graph-ics sends what the request says.
        if request.body != nil, request.header("Content-Type") == nil {
            headerList.append("Content-Type:")
        }
        try check(gics_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList.pointer), host: host)
    }

    /// GET, HEAD, POST as themselves; other methods through `CURLOPT_CUSTOMREQUEST`. A body goes out from
    /// `CURLOPT_POSTFIELDS` (no read callback, so libcurl can rewind it for its own reconnects); POST, PUT
    /// and PATCH without a body send `Content-Length: 0`; DELETE without a body sends no body.
    private func configureMethod(_ request: HTTPRequest, body: UnsafeMutableRawPointer, count: Int, host: String)
        throws
    {
        let method = request.method.uppercased()
        guard Self.isToken(method) else {
            throw CurlError.invalidRequest(host: host, "the method is not an HTTP token")
        }
        let sendsBody = request.body != nil || ["POST", "PUT", "PATCH"].contains(method)
        switch method {
        case "GET" where !sendsBody:
            try setLong(CURLOPT_HTTPGET, 1, host: host)
        case "HEAD" where !sendsBody:
            try setLong(CURLOPT_NOBODY, 1, host: host)
        default:
            if method != "POST" {
                try setString(CURLOPT_CUSTOMREQUEST, method, host: host)
            }
        }
        if sendsBody {
            try setLong(CURLOPT_POST, 1, host: host)
            try check(gics_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(count)), host: host)
            try check(gics_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, body), host: host)
        }
    }

    /// The write and header callbacks, and the progress callback when the transfer can be cancelled:
    /// non-capturing closures that find the transfer through the unretained context pointer. They never
    /// throw or trap; returning a short count (write) or non-zero (progress) makes libcurl stop.
    private func installCallbacks(_ state: TransferState, host: String) throws {
        let context = Unmanaged.passUnretained(state).toOpaque()
        if state.cancellation != nil {
            // libcurl calls it often while data flows and at least once a second while the transfer waits
            // (connecting, or for a slow answer): cancelling stops a transfer within about a second.
            try check(
                gics_curl_setopt_xferinfo_function(handle, CURLOPT_XFERINFOFUNCTION) { context, _, _, _, _ in
                    guard let context else { return 0 }
                    let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
                    return state.cancellation?.isCancelled == true ? 1 : 0
                },
                host: host)
            try check(gics_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context), host: host)
            try setLong(CURLOPT_NOPROGRESS, 0, host: host)
        }
        try check(
            gics_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                let (length, overflow) = size.multipliedReportingOverflow(by: count)
                guard !overflow, let context else { return 0 }
                let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
                return state.receiveBody(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length))
                    ? length : 0
            },
            host: host)
        try check(gics_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context), host: host)
        try check(
            gics_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                let (length, overflow) = size.multipliedReportingOverflow(by: count)
                guard !overflow, let context else { return 0 }
                let state = Unmanaged<TransferState>.fromOpaque(context).takeUnretainedValue()
                state.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : length))
                return length
            },
            host: host)
        try check(gics_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context), host: host)
    }

    // MARK: Small helpers

    private func setLong(_ option: CURLoption, _ value: Int, host: String) throws {
        try check(gics_curl_setopt_long(handle, option, value), host: host)
    }

    private func setString(_ option: CURLoption, _ value: String, host: String) throws {
        try check(gics_curl_setopt_string(handle, option, value), host: host)
    }

    /// Turns a failed setopt/getinfo into a `CurlError`.
    private func check(_ result: CURLcode, host: String) throws {
        guard result == CURLE_OK else {
            throw CurlError.from(result, host: host, detail: "", redacting: [])
        }
    }

    /// A timeout in whole milliseconds, at least 1 (0 would mean "no timeout" to libcurl).
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let clamped = min(seconds, 1_000_000_000)
        let total = clamped * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, Int(total))
    }

    /// Whether `text` is an HTTP token (RFC 9110 tchar): what a method or header name may contain.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}

/// What one transfer has received so far; the callbacks' context.
private final class TransferState {
    let limit: Int
    let cancellation: RequestCancellation?
    var body = Data()
    var headers: [(name: String, value: String)] = []
    var tooLarge = false

    init(limit: Int, cancellation: RequestCancellation?) {
        self.limit = limit
        self.cancellation = cancellation
    }

    /// Appends body bytes; false (stop the transfer) once the body would pass the limit.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            tooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Takes one header line as libcurl hands it over (status lines and the blank line included).
    ///
    /// A status line starts a new response (after `100 Continue`, `103 Early Hints`, or a proxy's
    /// `CONNECT` reply), so only the final response's fields remain. Obsolete folded lines continue the
    /// previous field's value.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var line = String(decoding: bytes, as: UTF8.self)
        while let last = line.last, last.isNewline {
            line.removeLast()
        }
        if line.isEmpty {
            return
        }
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        if let first = line.first, first == " " || first == "\t" {
            if !headers.isEmpty {
                let continuation = line.trimmingCharacters(in: .whitespaces)
                headers[headers.count - 1].value += " " + continuation
            }
            return
        }
        guard let colon = line.firstIndex(of: ":") else {
            return
        }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers.append((name, value))
    }
}
