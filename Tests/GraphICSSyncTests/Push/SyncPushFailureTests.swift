import Foundation
import GraphICS
import GraphStandIn
import Testing

@testable import GraphICSSync

@Suite struct SyncPushFailureTests {
    /// Two pulled single events, "Lunch" (`lunch`) and "Review" (`review`), both changed here.
    static func twoChanged() throws -> PushFixture {
        let fixture = try PushFixture()
        try fixture.base.addSingle("Lunch", day: 3, id: "lunch")
        try fixture.base.addSingle("Review", day: 10, id: "review")
        try fixture.base.run()
        try fixture.edit("uid-lunch.ics", replacing: "SUMMARY:", with: "SUMMARY:Long lunch")
        try fixture.edit("uid-review.ics", replacing: "SUMMARY:", with: "SUMMARY:Long review")
        return fixture
    }

    @Test func aFailedItemIsReportedWithItsRequestIDAndTheOthersGoOn() throws {
        let fixture = try Self.twoChanged()
        let body = Data(
            #"{"error":{"code":"ErrorInvalidRequest","message":"Refused for the test.","innerError":{"request-id":"req-42"}}}"#
                .utf8)
        fixture.standIn.injectFault(
            .respond(.init(status: 400, headers: [("Content-Type", "application/json")], body: body)),
            forPathContaining: "/events/lunch")
        let before = try fixture.record("uid-lunch.ics")
        let report = try fixture.sync()
        #expect(report.items.map(\.fileName) == ["uid-lunch.ics", "uid-review.ics"])
        guard case .failed(let reason, let requestID)? = report.items.first?.outcome else {
            Issue.record("not failed: \(report.items.map(\.outcome))")
            return
        }
        #expect(reason.contains("Refused for the test") && requestID == "req-42")
        #expect(report.items.last?.outcome == .pushed(.changed))
        #expect(fixture.standIn.event(id: "review")?["subject"] as? String == "Long review")
        #expect(try fixture.record("uid-lunch.ics") == before, "not recorded")
        #expect(try fixture.push().plan().actions.map(\.fileName) == ["uid-lunch.ics"], "tried again next time")
    }

    @Test func aRefusedSignInStopsTheRunWithTheStateAsItWas() throws {
        let fixture = try Self.twoChanged()
        let records = try fixture.state.items(of: fixture.pairing)
        fixture.standIn.revokeAllTokens()
        let push = fixture.push()
        #expect {
            try push.apply(try push.plan())
        } throws: { error in
            // A static token cannot be refreshed: the client hands on the sign-in's own error.
            error is AuthError || (error as? GraphError)?.kind == .unauthorized
        }
        #expect(try fixture.state.items(of: fixture.pairing) == records)
        #expect(fixture.operations("PATCH").isEmpty)
    }
}
