internal import CMicroHTTPD
import Foundation
import Synchronization

/// One libmicrohttpd daemon (`struct MHD_Daemon *`) and the memory its options point to.
///
/// Owns the daemon from `MHD_start_daemon` (through `gics_mhd_start`, every option in one
/// `MHD_OPTION_ARRAY`) until `MHD_stop_daemon` in `stop()` or `deinit`. The daemon runs its own threads:
/// `MHD_USE_EPOLL_INTERNAL_THREAD` with `MHD_OPTION_THREAD_POOL_SIZE` (epoll, so connections are not capped
/// at `FD_SETSIZE`), `MHD_USE_ITC` so that `MHD_stop_daemon` wakes the workers at once. The callbacks are
/// plain functions that find the `MicroHTTPDContext` through the context pointer.
///
/// Sendable by hand: after `init` only `stop()` changes anything, under `state`'s lock.
final class MicroHTTPDaemon: @unchecked Sendable {
    /// The bound port.
    let port: UInt16
    private let context: MicroHTTPDContext
    private let resources: MicroHTTPDResources
    private let drainLimit: Duration
    /// The daemon while it runs; nil once stopped.
    private let state: Mutex<OpaquePointer?>

    init(
        configuration: HTTPServerConfiguration,
        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse
    ) throws(HTTPServerError) {
        let context = MicroHTTPDContext(
            handler: handler, errorLog: configuration.errorLog,
            deadlines: RequestDeadlines(seconds: max(configuration.requestTimeout, 0)),
            bodyLimit: max(configuration.requestBodyLimit, 0))
        let resources = try MicroHTTPDResources(configuration: configuration, context: context)
        var errorNumber: Int32 = 0
        let daemon = gics_mhd_start(resources.settings, &errorNumber)
        let startMessages = context.finishStarting()
        guard let daemon else {
            throw Self.startError(
                configuration: configuration, errorNumber: errorNumber, messages: startMessages)
        }
        self.context = context
        self.resources = resources
        self.drainLimit = .seconds(max(configuration.connectionTimeout, 1))
        self.port = gics_mhd_bound_port(daemon)
        self.state = Mutex(daemon)
        context.deadlines.start()
    }

    deinit {
        stop()
    }

    /// Lets the requests in flight finish (at most the connection timeout; every response sent meanwhile,
    /// also to a client that connects now, closes its connection), then `MHD_stop_daemon`, which stops
    /// listening and closes every connection.
    ///
    /// `MHD_quiesce_daemon` is not used: with a thread pool in epoll mode, libmicrohttpd 0.9.75 takes the
    /// listen socket out of each worker's epoll set from the calling thread while the worker may be doing
    /// the same after seeing the quiesce flag, and the loser aborts the process ("Failed to remove listen
    /// FD from epoll set", seen in a sanitizer run of the HTTP tests).
    func stop() {
        state.withLock { daemon in
            guard let running = daemon else { return }
            daemon = nil
            context.closing.store(true, ordering: .relaxed)
            let deadline = ContinuousClock.now + drainLimit
            while context.inFlight.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
                usleep(2_000)
            }
            MHD_stop_daemon(running)
            context.deadlines.stop()
        }
    }

    /// The error for a failed start: bind errors by their errno, anything else by libmicrohttpd's message.
    private static func startError(
        configuration: HTTPServerConfiguration, errorNumber: Int32, messages: [String]
    ) -> HTTPServerError {
        let address = configuration.displayAddress
        let bindErrors = [EADDRINUSE, EADDRNOTAVAIL, EACCES, EAFNOSUPPORT]
        if bindErrors.contains(errorNumber) {
            return HTTPServerError(
                code: .cannotListen, address: address,
                message: "cannot listen on \(address): \(String(cString: strerror(errorNumber)))")
        }
        // The first message names the cause; the ones after it say that the start failed.
        var detail = messages.first ?? (errorNumber != 0 ? String(cString: strerror(errorNumber)) : "")
        while detail.hasSuffix(".") {
            detail.removeLast()
        }
        let isTLS = configuration.tls != nil && messages.contains { $0.contains("TLS") || $0.contains("x509") }
        return HTTPServerError(
            code: isTLS ? .tls : .cannotListen, address: address,
            message: "cannot listen on \(address): "
                + (detail.isEmpty ? "libmicrohttpd could not start" : "libmicrohttpd: \(detail)"))
    }
}

/// What the callbacks share: the handler, the count of requests in flight, whether the server is closing.
final class MicroHTTPDContext: Sendable {
    let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse
    let errorLog: (@Sendable (String) -> Void)?
    let deadlines: RequestDeadlines
    /// `HTTPServerConfiguration.requestBodyLimit`.
    let bodyLimit: Int
    /// Requests the handler has seen whose response is not yet completed (`MHD_OPTION_NOTIFY_COMPLETED`).
    let inFlight = Atomic<Int>(0)
    /// Set by `stop()`: responses from then on close their connection.
    let closing = Atomic<Bool>(false)
    /// libmicrohttpd's messages while `MHD_start_daemon` runs (to explain a failed start); nil afterwards.
    private let startMessages = Mutex<[String]?>([])

    init(
        handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse, errorLog: (@Sendable (String) -> Void)?,
        deadlines: RequestDeadlines, bodyLimit: Int
    ) {
        self.handler = handler
        self.errorLog = errorLog
        self.deadlines = deadlines
        self.bodyLimit = bodyLimit
    }

    /// One line libmicrohttpd logged.
    func log(_ line: String) {
        startMessages.withLock { messages in messages?.append(line) }
        errorLog?(line)
    }

    /// The messages logged during the start; later ones go to `errorLog` only.
    func finishStarting() -> [String] {
        startMessages.withLock { messages in
            defer { messages = nil }
            return messages ?? []
        }
    }
}

/// The C memory the daemon's options point to, freed in `deinit` (after the daemon has stopped: the
/// daemon holds the resources).
final class MicroHTTPDResources {
    let settings: UnsafeMutablePointer<gics_mhd_settings>
    private let address: UnsafeMutablePointer<sockaddr_storage>
    private let certificate: UnsafeMutablePointer<CChar>?
    private let key: UnsafeMutablePointer<CChar>?

    init(configuration: HTTPServerConfiguration, context: MicroHTTPDContext) throws(HTTPServerError) {
        let limits = try Limits(configuration)
        address = .allocate(capacity: 1)
        address.initialize(to: sockaddr_storage())
        guard Self.fill(address, host: configuration.address, port: configuration.port) else {
            address.deallocate()
            throw HTTPServerError(
                code: .invalidAddress, address: configuration.displayAddress,
                message: "cannot listen on \(configuration.displayAddress): \(configuration.address) is not an IPv4"
                    + " or IPv6 address")
        }
        certificate = configuration.tls.flatMap { strdup($0.certificatePEM) }
        key = configuration.tls.flatMap { strdup($0.keyPEM) }
        settings = .allocate(capacity: 1)
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_USE_TURBO.rawValue
        settings.initialize(
            to: gics_mhd_settings(
                flags: flags,
                address: UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr.self),
                thread_pool_size: limits.threads, connection_limit: limits.connections,
                per_address_connection_limit: limits.perAddress, connection_timeout: limits.timeout,
                connection_memory_limit: limits.memory,
                tls_certificate_pem: certificate.map { UnsafePointer($0) }, tls_key_pem: key.map { UnsafePointer($0) },
                handler: microHTTPDAccess, completed: microHTTPDCompleted, connection_notify: microHTTPDConnection,
                context: Unmanaged.passUnretained(context).toOpaque(), log: microHTTPDLog))
    }

    deinit {
        settings.deinitialize(count: 1)
        settings.deallocate()
        address.deallocate()
        free(certificate)
        free(key)
    }

    /// The configuration's counts, checked and converted for libmicrohttpd.
    private struct Limits {
        var threads: UInt32, connections: UInt32, perAddress: UInt32, timeout: UInt32, memory: Int

        init(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) {
            func count(_ value: Int, _ name: String, from lowest: Int) throws(HTTPServerError) -> UInt32 {
                guard value >= lowest, value <= 1_000_000 else {
                    throw HTTPServerError(
                        code: .invalidConfiguration, address: configuration.displayAddress,
                        message: "cannot listen on \(configuration.displayAddress): \(name) \(value) is out of"
                            + " range (\(lowest)…1000000)")
                }
                return UInt32(value)
            }
            threads = try count(configuration.threads, "the thread count", from: 1)
            connections = try count(configuration.connectionLimit, "the connection limit", from: 1)
            perAddress = try count(configuration.perAddressConnectionLimit ?? 0, "the per-address limit", from: 0)
            timeout = try count(configuration.connectionTimeout, "the connection timeout", from: 0)
            memory = Int(try count(configuration.connectionMemoryLimit, "the connection memory limit", from: 4096))
        }
    }

    /// Writes `host` (an IPv4 or IPv6 literal, IPv6 optionally in brackets) and `port` as a socket address.
    private static func fill(_ storage: UnsafeMutablePointer<sockaddr_storage>, host: String, port: UInt16) -> Bool {
        var literal = Substring(host)
        if literal.hasPrefix("["), literal.hasSuffix("]") {
            literal = literal.dropFirst().dropLast()
        }
        let text = String(literal)
        return UnsafeMutableRawPointer(storage).withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
            v4.pointee.sin_family = sa_family_t(AF_INET)
            v4.pointee.sin_port = port.bigEndian
            return inet_pton(AF_INET, text, &v4.pointee.sin_addr) == 1
        }
            || UnsafeMutableRawPointer(storage).withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                v6.pointee = sockaddr_in6()
                v6.pointee.sin6_family = sa_family_t(AF_INET6)
                v6.pointee.sin6_port = port.bigEndian
                return inet_pton(AF_INET6, text, &v6.pointee.sin6_addr) == 1
            }
    }
}

// MARK: Callbacks (called on libmicrohttpd's threads; they never throw or trap)

/// One request's state between libmicrohttpd's calls (`*con_cls`): its body so far, retained from the first
/// call until `microHTTPDCompleted` releases it.
private final class RequestUpload {
    var body = Data()
    /// The body passed the limit: the rest is dropped and the request answered 413.
    var tooLarge = false
}

/// `MHD_AccessHandlerCallback`. The first call only creates the request's `RequestUpload`; calls with body
/// bytes append them (up to `requestBodyLimit`); the call after the whole request was read (upload size 0)
/// answers. libmicrohttpd 0.9.75 closes the connection after a response queued on the first call (it cannot
/// know the request was read), so even a request without a body is answered on the second call, which keeps
/// the connection alive.
private func microHTTPDAccess(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>?, requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let url, let method, let version, let uploadSize, let requestState else {
        return .NO
    }
    let context = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
    guard let state = requestState.pointee else {
        context.inFlight.add(1, ordering: .relaxed)
        requestState.pointee = Unmanaged.passRetained(RequestUpload()).toOpaque()
        return .YES
    }
    let upload = Unmanaged<RequestUpload>.fromOpaque(state).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if let uploadData, !upload.tooLarge {
            if upload.body.count + uploadSize.pointee > context.bodyLimit {
                upload.tooLarge = true
                upload.body = Data()
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                    upload.body.append($0, count: uploadSize.pointee)
                }
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    requestDeadline(connection)?.deadline.store(.max, ordering: .relaxed)
    if upload.tooLarge {
        let limit = context.bodyLimit
        let response = HTTPServerResponse(
            status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")],
            body: HTTPBody(Data("the request body is longer than \(limit) bytes\n".utf8)))
        return queue(response, on: connection, closing: true)
    }
    let request = HTTPServerRequest(
        method: String(cString: method), path: String(cString: url), version: String(cString: version),
        headers: requestHeaders(connection), remoteAddress: clientAddress(connection), body: upload.body)
    upload.body = Data()
    let response = context.handler(request)
    return queue(response, on: connection, closing: context.closing.load(ordering: .relaxed))
}

/// `MHD_RequestCompletedCallback`: the response was sent (or the connection broke); the request's
/// `RequestUpload` is released.
private func microHTTPDCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, termination: MHD_RequestTerminationCode
) {
    guard let cls else { return }
    let context = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue()
    if let connection {
        requestDeadline(connection)?.deadline.store(context.deadlines.due(), ordering: .relaxed)
    }
    if let requestState, let state = requestState.pointee {
        Unmanaged<RequestUpload>.fromOpaque(state).release()
        requestState.pointee = nil
    }
    context.inFlight.subtract(1, ordering: .releasing)
}

/// `MHD_NotifyConnectionCallback`: a connection opened (its `RequestDeadline` registered and kept as the
/// socket context) or closed (forgotten).
private func microHTTPDConnection(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    event: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let deadlines = Unmanaged<MicroHTTPDContext>.fromOpaque(cls).takeUnretainedValue().deadlines
    if event == .CONNECTION_NOTIFY_STARTED {
        let entry = deadlines.opened(socket: gics_mhd_connection_socket(connection))
        socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
    } else if let stored = socketContext.pointee {
        let entry = Unmanaged<RequestDeadline>.fromOpaque(stored)
        deadlines.closed(entry.takeUnretainedValue())
        entry.release()
        socketContext.pointee = nil
    }
}

/// The connection's `RequestDeadline`, from its socket context.
private func requestDeadline(_ connection: OpaquePointer) -> RequestDeadline? {
    gics_mhd_socket_context(connection).map { Unmanaged<RequestDeadline>.fromOpaque($0).takeUnretainedValue() }
}

/// `gics_mhd_log_function`: one line of libmicrohttpd's log.
private func microHTTPDLog(context: UnsafeMutableRawPointer?, line: UnsafePointer<CChar>?) {
    guard let context, let line else { return }
    Unmanaged<MicroHTTPDContext>.fromOpaque(context).takeUnretainedValue().log(String(cString: line))
}

/// A libmicrohttpd response sending `body`: from a duplicate of its memory file's descriptor (sendfile;
/// libmicrohttpd closes the duplicate), or from its memory, retained until libmicrohttpd frees the response.
private func makeResponse(_ body: HTTPBody) -> OpaquePointer? {
    if body.file >= 0 {
        let file = fcntl(body.file, F_DUPFD_CLOEXEC, 0)
        if file >= 0 {
            if let response = MHD_create_response_from_fd64(UInt64(body.count), file) {
                return response
            }
            close(file)
        }
    }
    let retained = Unmanaged.passRetained(body)
    guard
        let response = MHD_create_response_from_buffer_with_free_callback_cls(
            body.count, body.bytes.baseAddress, releaseBody, retained.toOpaque())
    else {
        retained.release()
        return nil
    }
    return response
}

/// `MHD_ContentReaderFreeCallback`: the response is done with the body it retained.
private func releaseBody(cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<HTTPBody>.fromOpaque(cls).release()
}

/// The request's header fields in order (`MHD_get_connection_values_n`, `.HEADER_KIND`).
private func requestHeaders(_ connection: OpaquePointer) -> [(name: String, value: String)] {
    var headers: [(name: String, value: String)] = []
    headers.reserveCapacity(12)
    withUnsafeMutablePointer(to: &headers) { pointer in
        _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectHeader, pointer)
    }
    return headers
}

/// `MHD_KeyValueIteratorN` appending to the array `cls` points to.
private func collectHeader(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, keySize: Int,
    value: UnsafePointer<CChar>?, valueSize: Int
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
    cls.assumingMemoryBound(to: [(name: String, value: String)].self).pointee.append((name, text ?? ""))
    return .YES
}

/// The client's address as `gics_mhd_client_address` writes it.
private func clientAddress(_ connection: OpaquePointer) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        guard let base = buffer.baseAddress, gics_mhd_client_address(connection, base, 64) > 0 else { return "" }
        return String(cString: base)
    }
}

/// Queues `response` on the connection: the body's bytes without a copy, the handler's header fields,
/// `Connection: close` while the server is closing.
private func queue(_ response: HTTPServerResponse, on connection: OpaquePointer, closing: Bool) -> MHD_Result {
    guard let mhdResponse = makeResponse(response.body) else { return .NO }
    defer { MHD_destroy_response(mhdResponse) }
    for (name, value) in response.headers {
        _ = MHD_add_response_header(mhdResponse, name, value)
    }
    if closing {
        _ = MHD_add_response_header(mhdResponse, "Connection", "close")
    }
    let status = (100...599).contains(response.status) ? UInt32(response.status) : 500
    return MHD_queue_response(connection, status, mhdResponse)
}
