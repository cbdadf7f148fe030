// How Graph answers: its JSON content type, its error body, and the headers on every response.
import Foundation

extension GraphStandIn {
    /// Adds `request-id`, `client-request-id`, `Preference-Applied` and `Date` to an answer.
    func finish(_ response: LoopbackHTTPServer.Response, _ context: RequestContext) -> LoopbackHTTPServer.Response {
        var response = response
        response.headers.append(("request-id", context.requestID))
        response.headers.append(("client-request-id", context.clientRequestID))
        // An endpoint that applied a preference of its own (odata.maxpagesize) set the header already.
        var applied = context.preferencesApplied
        if let own = response.headers.firstIndex(where: { $0.name == "Preference-Applied" }) {
            applied.insert(response.headers.remove(at: own).value, at: 0)
        }
        if !applied.isEmpty && (200..<300).contains(response.status) {
            response.headers.append(("Preference-Applied", applied.joined(separator: ", ")))
        }
        response.headers.append(("Date", Self.httpDate(context.date)))
        return response
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for the `Date` header.
    static func httpDate(_ date: Date) -> String {
        let time = GraphDateTime(date, in: utc)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[time.weekday]), \(two(time.day)) \(months[time.month - 1]) \(time.year) "
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }

    /// Graph's JSON content type.
    static let jsonContentType =
        "application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8"

    /// A JSON answer with Graph's content type.
    func graphJSON(_ status: Int, _ object: Any) -> LoopbackHTTPServer.Response {
        guard let body = Self.jsonData(object) else {
            return .text(500, "stand-in produced a value that is not JSON")
        }
        return LoopbackHTTPServer.Response(
            status: status, headers: [("Content-Type", Self.jsonContentType)], body: body)
    }

    /// Graph's error body: `{"error":{"code","message","innerError":{"date","request-id","client-request-id"}}}`.
    func graphError(_ status: Int, _ code: String, _ message: String, _ context: RequestContext)
        -> LoopbackHTTPServer.Response
    {
        graphJSON(
            status,
            [
                "error": [
                    "code": code,
                    "message": message,
                    "innerError": [
                        "date": Self.innerErrorDate(context.date),
                        "request-id": context.requestID,
                        "client-request-id": context.clientRequestID,
                    ],
                ]
            ])
    }

    /// A failed step of the pipeline, carrying the answer to give.
    struct Rejection: Error {
        var response: LoopbackHTTPServer.Response
    }

    func reject(_ status: Int, _ code: String, _ message: String, _ context: RequestContext) -> Rejection {
        Rejection(response: graphError(status, code, message, context))
    }

    /// Graph's 404 for an item (event, calendar, series) the mailbox does not hold.
    func notFound(_ context: RequestContext) -> LoopbackHTTPServer.Response {
        graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.", context)
    }
}
