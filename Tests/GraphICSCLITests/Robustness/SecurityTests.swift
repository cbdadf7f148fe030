import Foundation
import GraphICS
import GraphStandIn
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What graph-ics promises about secrets and hostile content, checked on the built binary: the token store
/// is private and replaced atomically; no token, refresh token, device code or client secret ever reaches
/// stdout, stderr or the `--verbose` log, not even in failures; plain http:// and foreign next-page links
/// are refused; TLS verification cannot be switched off; a client secret is never taken from the command
/// line; and text from Graph or from an .ics file cannot add lines to the calendar graph-ics writes or to
/// the terminal.
@Suite struct SecurityTests {
    static func account() throws -> StandInAccount {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Megan Bowen", mail: "megan@contoso.example",
            userPrincipalName: "megan@contoso.onmicrosoft.example", mailboxTimeZone: "W. Europe Standard Time")
        return account
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    static func inode(_ path: String) -> ino_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_ino
    }

    // MARK: The token store

    /// Even with `umask 000` and a configuration folder others may read, `login` leaves a 0700 folder holding
    /// only 0600 files, and no temporary file.
    @Test func loginMakesTheTokenStorePrivateWhateverTheUmask() throws {
        let account = try Self.account()
        account.standIn.deviceCodeInterval = 1
        account.standIn.deviceCodeScript = [.success]
        let config = account.configDirectory
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        chmod(config.path, 0o755)
        let result = try SpawnedGraphICS(
            ["login"], environment: account.baseEnvironment, in: account.folder, limits: "umask 000"
        ).wait()
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(Self.mode(config.path) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: config.path)
        #expect(files.count == 1, "\(files)")
        for file in files {
            #expect(Self.mode(config.appendingPathComponent(file).path) == 0o600, "\(file)")
        }
    }

    /// A configuration folder anybody may write to (where someone else could swap the token file) is
    /// refused, and no token is saved there.
    @Test func aWorldWritableConfigurationFolderIsRefused() throws {
        let account = try Self.account()
        account.standIn.deviceCodeInterval = 1
        account.standIn.deviceCodeScript = [.success]
        let config = account.configDirectory
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        chmod(config.path, 0o777)
        let result = try account.run(["login"], environment: account.baseEnvironment)
        #expect(result.status != 0)
        #expect(result.errLines.last?.contains("GRAPH_ICS_CONFIG_DIR") == true, "stderr: \(result.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: config.path).isEmpty)
    }

    /// A refresh writes the new tokens to a new file renamed over the old one (a new inode: a reader sees
    /// the old file or the new one, never half of it), private, with no temporary file left; a token file
    /// someone made readable to others is private again after graph-ics used it.
    @Test func aRefreshReplacesTheTokenFileAtomicallyAndPrivately() throws {
        let account = try Self.account()
        let environment = try account.savedSignInEnvironment(accessTokenExpired: true)
        let config = account.configDirectory
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: config.path).first)
        let file = config.appendingPathComponent(name).path
        chmod(file, 0o644)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let inodeBefore = Self.inode(file)

        let result = try account.run(["whoami"], environment: environment)
        #expect(result.status == 0, "stderr: \(result.err)")
        let after = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(after != before, "the refreshed tokens were not saved")
        #expect(Self.inode(file) != inodeBefore, "the token file was rewritten in place, not replaced")
        #expect(Self.mode(file) == 0o600)
        #expect(Self.mode(config.path) == 0o700)
        // Beside it only the account's lock file, which the refresh held: empty and private.
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: config.path)) == [name, name + ".lock"])
        let lock = config.appendingPathComponent(name + ".lock").path
        #expect(Self.mode(lock) == 0o600)
        // Its size from stat: Foundation's read of an empty file keeps a 4 KB buffer LeakSanitizer reports.
        let lockSize = try FileManager.default.attributesOfItem(atPath: lock)[.size] as? Int
        #expect(lockSize == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: after) as? [String: Any])
        #expect(object.count > 2, "the new file is not a whole account")
    }

    // MARK: Secrets never printed

    /// Every secret the stand-in handed out or received: bearer tokens from `Authorization` headers, refresh
    /// tokens, device codes and client secrets from token requests, and whatever the token store holds.
    static func secrets(_ account: StandInAccount, extra: [String] = []) throws -> Set<String> {
        var found = Set(extra)
        for request in account.standIn.requests {
            if let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer ") {
                found.insert(String(authorization.dropFirst("Bearer ".count)))
            }
            let form = request.formBody
            for field in ["refresh_token", "device_code", "client_secret", "code", "client_assertion"] {
                if let value = form[field], !value.isEmpty { found.insert(value) }
            }
        }
        let config = account.configDirectory.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: config)) ?? [] where name.hasSuffix(".json") {
            let data = try Data(contentsOf: URL(fileURLWithPath: config).appendingPathComponent(name))
            if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                for key in ["accessToken", "refreshToken", "access_token", "refresh_token"] {
                    if let value = object[key] as? String, !value.isEmpty { found.insert(value) }
                }
            }
        }
        // Short values (a tenant name used as a secret by mistake) would match by chance.
        return found.filter { $0.count >= 8 }
    }

    static func expectNoSecret(
        _ secrets: Set<String>, in outputs: [(String, ProcessResult)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (what, result) in outputs {
            for secret in secrets {
                #expect(
                    !result.out.contains(secret) && !result.err.contains(secret),
                    "\(what) printed a secret (\(secret.prefix(6))…)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func noTokenOrDeviceCodeAppearsInAnyOutputOfASignedInSession() throws {
        let account = try Self.account()
        let standIn = account.standIn
        standIn.deviceCodeInterval = 1
        standIn.deviceCodeScript = [.authorizationPending, .success]
        standIn.accessTokenLifetime = .seconds(1)  // every later command refreshes
        try standIn.addEvent([
            "subject": "Standup",
            "start": ["dateTime": "2026-12-01T09:00:00", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-01T09:15:00", "timeZone": "UTC"],
        ])
        let environment = account.baseEnvironment
        let ticket = Package.fixture("import/cinema-ticket.ics").path
        var outputs: [(String, ProcessResult)] = []
        outputs.append(("login -v", try account.run(["login", "-v"], environment: environment)))
        #expect(outputs[0].1.status == 0, "stderr: \(outputs[0].1.err)")
        usleep(1_100_000)
        for arguments in [
            ["whoami", "-v"], ["calendars", "-v"], ["export", "--week", "2026-W49", "-v", "-o", "-"],
            ["import", ticket, "-v"], ["agenda", "--week", "2026-W49", "-v"],
        ] {
            outputs.append((arguments.joined(separator: " "), try account.run(arguments, environment: environment)))
        }
        #expect(outputs.allSatisfy { $0.1.status == 0 }, "\(outputs.map { ($0.0, $0.1.status, $0.1.err) })")
        #expect(outputs[1].1.err.contains("GET "), "-v logs no requests: \(outputs[1].1.err)")

        // Failures: a refresh refused, the sign-in service failing, Graph refusing the token.
        standIn.injectFault(
            .respond(
                .json(400, ["error": "invalid_grant", "error_description": "AADSTS70008: expired. Trace ID: x"])),
            forPathContaining: "/oauth2/v2.0/token", times: 1)
        usleep(1_100_000)
        outputs.append(("whoami -v (invalid_grant)", try account.run(["whoami", "-v"], environment: environment)))
        #expect(outputs.last?.1.status == 77)
        standIn.injectFault(
            .respond(.text(500, "token service down")), forPathContaining: "/oauth2/v2.0/token", times: 20)
        outputs.append(("export -v (500)", try account.run(["export", "-v", "-o", "-"], environment: environment)))
        #expect(outputs.last?.1.status == 69)

        let secrets = try Self.secrets(account)
        #expect(secrets.count >= 4, "too few secrets collected: the check would prove nothing")
        Self.expectNoSecret(secrets, in: outputs)
    }

    @Test func noClientSecretOrAppTokenAppearsInOutputEvenWhenTheSecretIsRefused() throws {
        let account = try Self.account()
        let secret = "s3cr3t~" + UUID().uuidString
        account.standIn.registerApp(
            clientID: account.clientID, secret: secret,
            roles: ["Calendars.ReadWrite", "MailboxSettings.Read", "User.Read.All"])
        var environment = account.baseEnvironment
        environment["GRAPH_ICS_TENANT"] = "contoso.example"
        environment["GRAPH_ICS_CLIENT_SECRET"] = secret
        var outputs: [(String, ProcessResult)] = []
        let user = "megan@contoso.onmicrosoft.example"
        outputs.append(
            ("whoami --user -v", try account.run(["whoami", "--user", user, "-v"], environment: environment)))
        #expect(outputs[0].1.status == 0, "stderr: \(outputs[0].1.err)")
        outputs.append(
            (
                "export --user -v",
                try account.run(["export", "--user", user, "-v", "-o", "-"], environment: environment)
            ))

        let secretFile = account.folder.appendingPathComponent("secret.txt")
        try Data((secret + "-wrong\n").utf8).write(to: secretFile)
        environment["GRAPH_ICS_CLIENT_SECRET"] = nil
        environment["GRAPH_ICS_CLIENT_SECRET_FILE"] = secretFile.path
        let refused = try account.run(["whoami", "--user", user, "-v"], environment: environment)
        outputs.append(("whoami with a wrong secret", refused))
        #expect(refused.status == 64, "stderr: \(refused.err)")
        #expect(refused.errLines.count == 1 && refused.err.contains("secret"), "stderr: \(refused.err)")

        Self.expectNoSecret(try Self.secrets(account, extra: [secret, secret + "-wrong"]), in: outputs)
    }

    @Test(arguments: ["--client-secret", "--secret", "--password", "--token", "--access-token"])
    func aSecretIsNeverTakenFromTheCommandLine(option: String) throws {
        let account = try Self.account()
        let value = "cmdline-" + UUID().uuidString
        for arguments in [["whoami", option, value], ["export", "\(option)=\(value)"], ["login", option, value]] {
            let result = try account.run(arguments, environment: account.tokenEnvironment())
            #expect(result.status == 64, "\(arguments): \(result.err)")
            #expect(result.err.contains("unknown option '\(option)'"), "\(result.err)")
            #expect(!result.err.contains(value) && !result.out.contains(value), "the value was echoed")
        }
        #expect(account.standIn.requests.isEmpty)
    }

    // MARK: Where requests may go

    @Test(arguments: [
        "http://graph.example.com/v1.0", "HTTP://graph.example.com/v1.0", "http://127.0.0.1.nip.example/v1.0",
        "http://localhost.example.com/v1.0", "http://127.0.0.1@graph.example.com/v1.0",
        "http://[::ffff:203.0.113.7]/v1.0", "http://203.0.113.7/v1.0",
    ])
    func plainHTTPToAHostThatIsNotLoopbackIsRefused(url: String) throws {
        let account = try Self.account()
        for (arguments, environment) in [
            (["whoami"], account.tokenEnvironment().merging(["GRAPH_ICS_GRAPH_URL": url]) { _, new in new }),
            (["whoami", "--graph-url", url], account.tokenEnvironment()),
        ] {
            let result = try account.run(arguments, environment: environment, timeout: 30)
            #expect(result.status == 64, "\(arguments) \(url): \(result.err)")
            #expect(result.err.contains("http://"), "\(result.err)")
            #expect(result.errLines.count == 1, "\(result.err)")
        }
    }

    @Test(arguments: ["http://login.example.com", "http://10.0.0.1:8080", "http://127.0.0.1.nip.example"])
    func plainHTTPForTheSignInAuthorityIsRefused(authority: String) throws {
        let account = try Self.account()
        var environment = account.baseEnvironment
        environment["GRAPH_ICS_AUTHORITY"] = authority
        for arguments in [["login"], ["login", "--authority", authority]] {
            let result = try account.run(arguments, environment: environment, timeout: 30)
            #expect(result.status == 64, "\(arguments): \(result.err)")
            #expect(result.err.contains("http://"), "\(result.err)")
        }
        #expect(account.standIn.requests.isEmpty)
    }

    /// Graph's second page is announced on another server (another port is another origin): graph-ics
    /// refuses to follow, so the token never goes there; nothing is written.
    @Test func aNextLinkToAnotherHostIsNotFollowed() throws {
        let account = try Self.account()
        let elsewhere = try LoopbackHTTPServer { _ in .respond(.json(200, ["value": []])) }
        defer { elsewhere.stop() }
        let standIn = account.standIn
        for index in 0..<1001 {
            let start = 1_796_112_000 + index * 300
            try standIn.addEvent([
                "subject": "Event \(index)",
                "start": [
                    "dateTime": FaultInjectionTests.graphUTC(Date(timeIntervalSince1970: Double(start))),
                    "timeZone": "UTC",
                ],
                "end": [
                    "dateTime": FaultInjectionTests.graphUTC(Date(timeIntervalSince1970: Double(start + 300))),
                    "timeZone": "UTC",
                ],
            ])
        }
        standIn.nextLinkOrigin = elsewhere.baseURL
        let output = OutputExpectation(folder: account.folder, name: "week.ics", previous: nil)
        let result = try account.run(
            ["export", "--week", "2026-W49", "-v", "-o", output.name], environment: account.tokenEnvironment())
        expectOneClearError(
            status: result.status, stdout: result.stdout, errLines: result.errLines.filter { !$0.hasPrefix("note: ") },
            expected: 69, mentioning: ["next-page link", "127.0.0.1:\(elsewhere.port)"])
        #expect(elsewhere.requestCount == 0, "graph-ics sent a request to the foreign host")
        #expect(standIn.requests.contains { $0.path.hasSuffix("/calendarView") }, "the first page was not read")
        try output.expectUntouched()
        Self.expectNoSecret(try Self.secrets(account), in: [("export -v", result)])
    }

    // MARK: TLS

    @Test(arguments: ["--insecure", "-k", "--no-verify", "--no-check-certificate", "--tls-no-verify"])
    func noOptionTurnsTLSVerificationOff(option: String) throws {
        let account = try Self.account()
        for command in ["whoami", "export", "import", "login", "calendars", "agenda", "add"] {
            let result = try account.run([command, option], environment: account.tokenEnvironment())
            #expect(result.status == 64, "\(command) \(option): \(result.err)")
            #expect(result.err.contains("unknown option '\(option)'"), "\(command): \(result.err)")
        }
    }

    /// The transport sets `CURLOPT_SSL_VERIFYPEER` to 1 and `CURLOPT_SSL_VERIFYHOST` to 2 and nothing ever
    /// sets them (or the proxy's, or any other verification switch) otherwise; no source reads an environment
    /// variable or flag that could.
    @Test func theSourcesNeverSwitchTLSVerificationOff() throws {
        let sources = Package.root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var settings: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard ["swift", "h", "c"].contains(url.pathExtension) else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let code = line.split(separator: "//", maxSplits: 1).first.map(String.init) ?? ""
                if code.contains("SSL_VERIFY") || code.contains("CURLOPT_SSL_OPTIONS")
                    || code.contains("CURLSSLOPT_") || code.contains("CURLOPT_CAINFO")
                    || code.contains("CURLOPT_CAPATH")
                    || code.contains("CURLOPT_PINNEDPUBLICKEY")
                {
                    settings.append(url.lastPathComponent + ": " + code.trimmingCharacters(in: .whitespaces))
                }
                #expect(!code.lowercased().contains("insecure\""), "\(url.lastPathComponent): \(code)")
            }
        }
        #expect(
            settings.sorted() == [
                "CurlEasyHandle.swift: try setLong(CURLOPT_SSL_VERIFYHOST, 2, host: host)",
                "CurlEasyHandle.swift: try setLong(CURLOPT_SSL_VERIFYPEER, 1, host: host)",
            ], "\(settings)")
    }

    /// A TLS server with a self-signed certificate (openssl s_server): graph-ics refuses the handshake, so no
    /// request — and no token — is sent, and says so in one sentence.
    @Test func aServerWithAnUntrustedCertificateIsRefused() throws {
        let account = try Self.account()
        let openssl = try #require(
            ["/usr/bin/openssl", "/bin/openssl", "/usr/local/bin/openssl"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "the openssl command (Debian: package openssl, a dependency of ca-certificates) is needed")
        let folder = account.folder
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        let made = try graphICSShell(
            "\(openssl) req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -days 1 -keyout '\(key)' -out '\(certificate)'",
            in: folder)
        try #require(made == 0, "openssl could not make a certificate")
        let port = 20_000 + Int.random(in: 0..<20_000)
        let log = folder.appendingPathComponent("s_server.log").path
        let server = try SpawnedShell(
            "exec \(openssl) s_server -accept \(port) -cert '\(certificate)' -key '\(key)' -www -quiet > '\(log)' 2>&1",
            in: folder)
        defer { server.stop() }
        usleep(500_000)
        var environment = account.tokenEnvironment()
        environment["GRAPH_ICS_GRAPH_URL"] = "https://127.0.0.1:\(port)/v1.0"
        let token = try #require(environment["GRAPH_ICS_ACCESS_TOKEN"])
        let result = try account.run(["whoami", "-v"], environment: environment, timeout: 60)
        #expect(result.status == 69, "stderr: \(result.err)")
        let errors = result.errLines.filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 1, "\(result.err)")
        #expect(
            errors.first.map { $0.contains("certificate") || $0.contains("TLS") } == true, "\(result.err)")
        #expect(!result.err.contains(token))
    }

    // MARK: Hostile text

    /// An event whose every text field tries to end the event, start another, add properties or parameters.
    static var hostileEvent: [String: Any] {
        [
            "id": "AAMk-hostile\r\nX-INJECTED-ID:1",
            "iCalUId": "hostile-1\r\nATTENDEE:mailto:uid@evil.example",
            "subject": "Lunch\r\nATTENDEE;CN=Mallory:mailto:mallory@evil.example\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\n"
                + "UID:injected\r\nSUMMARY:Injected",
            "body": ["contentType": "text", "content": "Hi\r\nEND:VCALENDAR\r\nBEGIN:VCALENDAR\nX-EVIL:1\rX-CR:1"],
            "location": [
                "displayName": "Room 1; X-INJECT=1:evil\nDTSTART:19700101T000000Z",
                "address": ["street": "Main St\r\nGEO:1;1", "city": "Town;X-P=1", "countryOrRegion": "DE:\nX-C:1"],
            ],
            "categories": ["Red,Blue", "A;B\nX-CAT:1", "C:D"],
            "organizer": [
                "emailAddress": [
                    "name": "Org\"; ROLE=CHAIR:mailto:org@evil.example", "address": "org@example.com\r\nX-ORG:1",
                ]
            ],
            "attendees": [
                [
                    "type": "required", "status": ["response": "accepted"],
                    "emailAddress": ["name": "Eve\";X-A=1:\r\nX-ATT:1", "address": "eve@example.com\r\nX-ADDR:1"],
                ]
            ],
            "onlineMeeting": ["joinUrl": "https://teams.example/join\r\nX-URL:1"],
            "webLink": "https://outlook.example/x\r\nX-WEB:1",
            "start": ["dateTime": "2026-12-01T10:00:00.0000000", "timeZone": "UTC"],
            "end": ["dateTime": "2026-12-01T11:00:00.0000000", "timeZone": "UTC"],
            "reminderMinutesBeforeStart": 15, "isReminderOn": true,
        ]
    }

    /// The calendar holds exactly one VEVENT (with one VALARM), no property or parameter the text tried to
    /// add, every line is a `NAME[;PARAM…]:value` line, and the subject reads back unchanged.
    static func expectNothingInjected(_ calendar: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = ICalendarText.unfoldedLines(calendar)
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 1, sourceLocation: sourceLocation)
        #expect(lines.filter { $0 == "BEGIN:VCALENDAR" }.count == 1, sourceLocation: sourceLocation)
        #expect(lines.filter { $0.hasPrefix("ATTENDEE") }.count == 1, sourceLocation: sourceLocation)
        #expect(lines.filter { $0.hasPrefix("UID") }.count == 1, sourceLocation: sourceLocation)
        #expect(lines.filter { $0.hasPrefix("DTSTART") }.count == 1, sourceLocation: sourceLocation)
        let names = Set(
            lines.map { line in
                String(line.prefix { $0 != ":" && $0 != ";" })
            })
        let injected = names.filter {
            ["X-INJECTED-ID", "X-EVIL", "X-CR", "X-ORG", "X-ATT", "X-ADDR", "X-URL", "X-WEB", "X-CAT", "X-C", "GEO"]
                .contains($0)
        }
        #expect(injected.isEmpty, "properties injected: \(injected)", sourceLocation: sourceLocation)
        for line in lines {
            #expect(
                line.first.map { $0.isLetter } == true && line.contains(":"), "not a content line: \(line)",
                sourceLocation: sourceLocation)
            #expect(
                !line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" }, "a control character in \(line)",
                sourceLocation: sourceLocation)
        }
        // Parameters (split outside quoted values, as RFC 5545 reads them): only those graph-ics writes.
        for line in lines {
            let names = Set(Self.parameters(of: line).map(\.name))
            #expect(
                names.isSubset(of: ["CN", "CUTYPE", "ROLE", "PARTSTAT", "RSVP", "VALUE", "FEATURE", "LABEL", "TZID"]),
                "parameters \(names) in \(line)", sourceLocation: sourceLocation)
            if line.hasPrefix("ORGANIZER") {
                #expect(names == ["CN"], "\(line)", sourceLocation: sourceLocation)
            }
        }
        let event = try #require(ICalendarText.events(calendar).first, sourceLocation: sourceLocation)
        let summary = try #require(event.value("SUMMARY"), sourceLocation: sourceLocation)
        #expect(summary.hasPrefix("Lunch\\nATTENDEE\\;CN=Mallory:"), "\(summary)", sourceLocation: sourceLocation)
    }

    /// The parameters of an unfolded content line: `;NAME=value` pieces before the first colon that is not
    /// inside a quoted value.
    static func parameters(of line: String) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var current = ""
        var quoted = false
        var inParameters = false
        for character in line {
            if character == "\"" { quoted.toggle() }
            if !quoted && (character == ";" || character == ":") {
                if inParameters, let equals = current.firstIndex(of: "=") {
                    result.append((String(current[..<equals]), String(current[current.index(after: equals)...])))
                }
                if character == ":" { break }
                inParameters = true
                current = ""
                continue
            }
            current.append(character)
        }
        return result
    }

    @Test func hostileGraphTextCannotAddLinesToAConvertedCalendar() throws {
        let account = try Self.account()
        let file = account.folder.appendingPathComponent("hostile.json")
        try JSONSerialization.data(withJSONObject: ["value": [Self.hostileEvent]]).write(to: file)
        let result = try account.run(["convert", file.path], environment: [:])
        #expect(result.status == 0, "stderr: \(result.err)")
        try Self.expectNothingInjected(result.out)

        // Read back by libical (through graph-ics's own reader): one event, the subject whole.
        let back = try account.run(
            ["convert", "-", "--to", "graph-json"], environment: [:], stdin: .pipe(result.stdout))
        #expect(back.status == 0, "stderr: \(back.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: back.stdout) as? [String: Any])
        let events = try #require(object["value"] as? [[String: Any]])
        #expect(events.count == 1)
        let subject = try #require(events.first?["subject"] as? String)
        #expect(subject.contains("ATTENDEE;CN=Mallory:mailto:mallory@evil.example"))
        #expect(subject.contains("SUMMARY:Injected"))

        // As a meeting, libical finds exactly the one attendee graph-ics wrote.
        let meeting = try account.run(
            ["convert", "-", "--to", "graph-json", "--as-meeting"], environment: [:], stdin: .pipe(result.stdout))
        let meetingObject = try #require(try JSONSerialization.jsonObject(with: meeting.stdout) as? [String: Any])
        let meetingEvent = try #require((meetingObject["value"] as? [[String: Any]])?.first)
        #expect((meetingEvent["attendees"] as? [[String: Any]])?.count == 1, "\(meetingEvent)")
    }

    @Test func hostileGraphTextCannotAddLinesToAnExport() throws {
        let account = try Self.account()
        var event = Self.hostileEvent
        event["id"] = nil
        event["iCalUId"] = nil
        try account.standIn.addEvent(event)
        let result = try account.run(
            ["export", "--week", "2026-W49", "--tz", "UTC", "-o", "-"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        try Self.expectNothingInjected(result.out)
    }

    /// Text shown on the terminal (a warning naming an event, the import report) cannot move the cursor,
    /// recolour, retitle the terminal or start a line of its own: control characters from the input never
    /// reach stderr.
    @Test func hostileTextCannotReachTheTerminalAsControlCharacters() throws {
        let account = try Self.account()
        let file = account.folder.appendingPathComponent("hostile.ics")
        let text =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//evil//EN\r\n"
            + "BEGIN:VEVENT\r\nUID:a\u{1B}[2Jb\r\nDTSTART:20261201T100000Z\r\nDURATION:PT1H\r\n"
            + "SUMMARY:ok\\nerror: fake line\u{1B}]0;owned\u{07}\u{1B}[31m\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:b\r\nSUMMARY:no start\\r\\nwarning: fake\u{1B}[31m\r\nEND:VEVENT\r\n"
            + "END:VCALENDAR\r\n"
        try Data(text.utf8).write(to: file)
        let convert = try account.run(["convert", file.path, "--tz", "UTC"], environment: [:])
        let imported = try account.run(["import", file.path], environment: account.tokenEnvironment())
        for (what, result) in [("convert", convert), ("import", imported)] {
            #expect(result.status == 1, "\(what): \(result.err)")
            #expect(!result.err.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(what): \(result.err)")
            #expect(
                result.errLines.allSatisfy {
                    $0.hasPrefix("error: ") || $0.hasPrefix("warning: ") || $0.hasPrefix("note: ")
                        || $0.hasPrefix(file.path) || $0.hasPrefix(file.lastPathComponent + ": ")
                }, "\(what): a line of the input's own on stderr: \(result.err)")
            #expect(!result.errLines.contains { $0.hasPrefix("error: fake") || $0.hasPrefix("warning: fake") })
        }
    }
}

/// Runs `/bin/sh -c command` in `directory` and returns its exit status.
func graphICSShell(_ command: String, in directory: URL) throws -> Int32 {
    let shell = try SpawnedShell(command + " >/dev/null 2>&1", in: directory)
    return shell.waitForExit()
}

/// A `/bin/sh -c` child (a helper server for a test), stopped with SIGTERM.
final class SpawnedShell {
    private let child: ChildProcess

    init(_ command: String, in directory: URL) throws {
        let script = "cd \(shellQuoted(directory.path)) || exit 120; \(command)"
        child = try ChildProcess("/bin/sh", ["-c", script], stdout: .null, stderr: .null)
    }

    /// The exit status, -1 when a signal ended the shell.
    func waitForExit() -> Int32 {
        let exit = child.waitForExit(timeout: 86_400)
        return exit?.status ?? -1
    }

    func stop() {
        child.signal(SIGTERM)
        _ = waitForExit()
    }
}
