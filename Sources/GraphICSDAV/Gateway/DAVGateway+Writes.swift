import Foundation
import GraphICS
import GraphICSServe

/// PUT and DELETE: preconditions, the calendar's write, and what Graph's failures become.
extension DAVGateway {
    func put(_ request: HTTPServerRequest, target: Target, login: DAVLogin) -> HTTPServerResponse {
        guard case .object(_, let key, let name) = target else {
            return text(
                405, "PUT makes calendar objects: /dav/USER/CALENDAR/NAME.ics\n", extra: [("Allow", Self.allowed)])
        }
        guard let calendar = calendar(key, of: login) else { return notFound() }
        if let refusal = writeRefusal(calendar, login) { return refusal }
        _ = fresh(calendar)
        let account = accounts.session(login.account)
        return write(calendar, login) {
            switch try calendar.put(
                name: name, body: request.body, preconditions: Self.preconditions(request),
                mailbox: account.mailbox ?? login.mailbox)
            {
            // RFC 4791 §5.3.4: the stored event is not the bytes sent, so no ETag; the next GET gives the real one.
            case .created: return HTTPServerResponse(status: 201, headers: [("Content-Length", "0")])
            case .updated: return HTTPServerResponse(status: 204)
            }
        }
    }

    func delete(_ request: HTTPServerRequest, target: Target, login: DAVLogin) -> HTTPServerResponse {
        guard case .object(_, let key, let name) = target else {
            return error(403, .dav("need-privileges"), "calendars are deleted in Outlook, not here")
        }
        guard let calendar = calendar(key, of: login) else { return notFound() }
        if let refusal = writeRefusal(calendar, login) { return refusal }
        _ = fresh(calendar)
        return write(calendar, login) {
            guard try calendar.delete(name: name, preconditions: Self.preconditions(request)) else { return notFound() }
            return HTTPServerResponse(status: 204)
        }
    }

    static func preconditions(_ request: HTTPServerRequest) -> DAVPreconditions {
        DAVPreconditions(
            ifMatch: request.header("If-Match").map(etags),
            ifNoneMatchAny: request.header("If-None-Match")?.trimmingCharacters(in: .whitespaces) == "*")
    }

    /// Why the login may not write to the calendar at all; nil when it may.
    func writeRefusal(_ calendar: DAVCalendar, _ login: DAVLogin) -> HTTPServerResponse? {
        if login.readOnly {
            return error(403, .dav("need-privileges"), "this login is read-only (graph-ics dav add --read-only)")
        }
        if !calendar.info.canEdit {
            return error(403, .dav("need-privileges"), "Outlook does not let you change events of this calendar")
        }
        if calendar.client == nil {
            let problem = accounts.session(login.account).problem ?? "there is no Outlook sign-in for it on the server"
            return error(
                403, .dav("need-privileges"),
                "the Outlook sign-in for \(login.account) on the server cannot be used (\(problem)): run graph-ics login"
                    + " --name \(login.account)")
        }
        return nil
    }

    /// Runs a write and turns its failures into answers: a refusal as its DAV error, Graph throttled or down
    /// as 503 with Retry-After, a sign-in refused as 403 naming the fix, a change made in Outlook meanwhile as 412.
    func write(
        _ calendar: DAVCalendar, _ login: DAVLogin, _ body: () throws -> HTTPServerResponse
    ) -> HTTPServerResponse {
        do {
            return try body()
        } catch let refusal as DAVWriteRefusal {
            return error(refusal.status, refusal.condition, refusal.message)
        } catch let error as GraphError {
            switch error.kind {
            case .badRequest where error.status == 412:
                return self.error(
                    412, .dav("precondition-failed"), "the event changed in Outlook meanwhile: read it again")
            case .unavailable, .temporary:
                return self.error(
                    503, .dav("service-unavailable"), "Outlook is unavailable now (\(error.message)); try again later",
                    extra: [("Retry-After", "60")])
            case .unauthorized:
                return self.error(403, .dav("need-privileges"), "Outlook refused the change: \(error.message)")
            case .notFound:
                return self.error(409, .dav("precondition-failed"), "the event is gone from Outlook: \(error.message)")
            default:
                return self.error(502, .dav("bad-gateway"), "Outlook refused the change: \(error.message)")
            }
        } catch let error as AuthError {
            accounts.refuse(login.account, problem: "\(error)")
            return self.error(
                403, .dav("need-privileges"),
                "the Outlook sign-in for \(login.account) on the server expired: run graph-ics login --name \(login.account)"
            )
        } catch {
            log("graph-ics serve: a write to \(calendar.info.name) failed: \(error)")
            return text(500, "the gateway failed: \(error)\n")
        }
    }
}
