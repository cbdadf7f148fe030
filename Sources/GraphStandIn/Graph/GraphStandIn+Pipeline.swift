// The path of every request through the stand-in: recorded, matched against queued faults, routed to
// `$batch`, Graph or the identity platform, and for Graph authenticated, routed, authorised, admitted
// (throttling) and answered with Graph's headers.
import Foundation

extension GraphStandIn {
    /// Entry point for every HTTP request the server reads.
    func handle(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        let record = RecordedRequest(
            method: request.method, target: request.target, path: request.path, query: request.query,
            headers: request.headers, body: request.body, receivedAt: request.receivedAt, viaBatch: false,
            batchRequestID: nil, connectionID: request.connectionID)
        var index = 0
        let fault: LoopbackHTTPServer.Action? = locked { state in
            state.requests.append(record)
            index = state.requests.count - 1
            guard
                let index = state.faults.firstIndex(where: {
                    request.target.contains($0.fragment) || request.path.contains($0.fragment)
                })
            else { return nil }
            let action = state.faults[index].action
            state.faults[index].remaining -= 1
            if state.faults[index].remaining <= 0 { state.faults.remove(at: index) }
            return action
        }
        let action = fault ?? route(request)
        let status: Int? =
            switch action {
            case .respond(let response), .delayed(_, let response): response.status
            case .truncated(let response, _): response.status
            case .closeConnection, .raw: nil
            }
        locked { $0.requests[index].status = status }
        if let status, request.path.lowercased() == "/v1.0/$batch" {
            Self.recordBody(
                method: request.method, path: request.path, viaBatch: false, status: status, body: request.body)
        }
        return action
    }

    /// Serves a request no fault took.
    private func route(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Action {
        if request.path.hasPrefix("/v1.0") {
            let delay = locked { $0.networkLatency }
            if delay > .zero { sleep(for: delay) }
        }

        if request.path == "/v1.0/$batch" || request.path.lowercased() == "/v1.0/$batch" {
            return .respond(serveBatch(request))
        }
        if request.path.hasPrefix("/v1.0/") || request.path == "/v1.0" {
            return .respond(serveGraph(GraphCall(request, viaBatch: false, batchRequestID: nil)))
        }
        if let response = serveOAuth(request) {
            return .respond(response)
        }
        return .respond(.text(404, "The stand-in serves /v1.0/... and /{tenant}/oauth2/v2.0/{devicecode,token}."))
    }

    /// Serves one Graph request (plain or a `$batch` part): authentication, routing, throttling, latency,
    /// the endpoint itself, and the headers Graph puts on every answer.
    func serveGraph(_ call: GraphCall) -> LoopbackHTTPServer.Response {
        let context = RequestContext(call)
        let record = RecordedRequest(
            method: call.method, target: call.target, path: call.path, query: call.query,
            headers: call.headers, body: call.body, receivedAt: call.receivedAt, viaBatch: call.viaBatch,
            batchRequestID: call.batchRequestID, connectionID: call.connectionID)
        let index = locked { state in
            state.operations.append(record)
            return state.operations.count - 1
        }
        var violated = false
        let response = serveAuthenticated(call, context, violated: &violated)
        locked { state in
            state.operations[index].status = response.status
            state.operations[index].violatedRetryAfter = violated
        }
        Self.recordBody(
            method: call.method, path: call.path, viaBatch: call.viaBatch, status: response.status, body: call.body)
        return finish(response, context)
    }

    private func serveAuthenticated(_ call: GraphCall, _ context: RequestContext, violated: inout Bool)
        -> LoopbackHTTPServer.Response
    {
        let principal: Principal
        switch authenticate(call, context) {
        case .success(let found): principal = found
        case .failure(let rejection): return rejection.response
        }
        let route: GraphRoute
        switch resolveRoute(call, principal, context) {
        case .success(let found): route = found
        case .failure(let rejection): return rejection.response
        }
        if let denied = authorize(route, call, principal, context) { return denied }

        // Throttling happens per mailbox, before any work.
        let mailbox = route.mailboxUserID
        if let refusal = admit(mailbox: mailbox, at: call.receivedAt, context, violated: &violated) { return refusal }
        defer { release(mailbox: mailbox) }
        let delay = locked { $0.latency }
        if delay > .zero { sleep(for: delay) }
        return perform(route, call, principal, context)
    }

    /// Blocks the calling connection thread for `duration` (a minute at most).
    func sleep(for duration: Duration) {
        let micros = Self.seconds(duration) * 1_000_000
        if micros >= 1 { usleep(useconds_t(min(micros, 60_000_000))) }
    }
}
