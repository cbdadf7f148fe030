import Foundation
import GraphICS
import GraphStandIn
import TestSupport
import Testing

/// Two graph-ics processes sharing one saved sign-in whose access token has expired: the account's file
/// lock lets one of them renew it and the other use what it wrote.
@Suite struct TokenRefreshCommandTests {
    @Test("two whoami at once with an expired token: one refresh, both answer, the saved sign-in works")
    func twoProcessesRefreshOnce() throws {
        let account = try AccountCommandTests.account()
        let environment = try account.savedSignInEnvironment(accessTokenExpired: true)
        // Slow enough that, without the lock, both processes would spend the one refresh token.
        account.standIn.tokenEndpointLatency = .milliseconds(500)
        let folder = account.folder
        let results = Locked<[ProcessResult]>([])
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread {
                if let result = try? graphICS(["whoami"], in: folder, environment: environment) {
                    results.mutate { $0.append(result) }
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(results.value.count == 2)
        for result in results.value {
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(result.out.hasPrefix("Megan Bowen <megan@contoso.example>\n"), "stdout: \(result.out)")
        }
        let refreshes = account.standIn.requests.filter { $0.formBody["grant_type"] == "refresh_token" }
        #expect(refreshes.count == 1)
        #expect(account.standIn.liveRefreshTokenCount == 1)

        // The file is whole and holds the renewed sign-in: a third process needs no refresh.
        let stored = try #require(try AccountCommandTests.store(account).list().first)
        let third = try account.run(["whoami"], environment: environment)
        #expect(third.status == 0, "stderr: \(third.err)")
        let after = account.standIn.requests.filter { $0.formBody["grant_type"] == "refresh_token" }
        #expect(after.count == 1)
        #expect(try AccountCommandTests.store(account).list() == [stored])
    }
}
