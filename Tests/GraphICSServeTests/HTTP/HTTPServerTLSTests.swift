import Foundation
import TestSupport
import Testing

@testable import GraphICSServe

/// HTTPS through libmicrohttpd's GnuTLS, with a self-signed certificate made by openssl for the test.
@Suite struct HTTPServerTLSTests {
    /// A certificate for 127.0.0.1 and its key, made by `openssl req -x509` in a temporary folder.
    private struct Certificate {
        var folder: URL
        var certificateFile: String
        var credentials: TLSCredentials
    }

    private static func makeCertificate() throws -> Certificate {
        let openssl = try #require(
            ["/usr/bin/openssl", "/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "openssl is needed to make the test's certificate: install it (scripts/setup does)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        let run = try runProgram(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        try #require(run.status == 0, "openssl req failed: \(run.err)")
        let credentials = TLSCredentials(
            certificatePEM: try String(contentsOfFile: certificate, encoding: .utf8),
            keyPEM: try String(contentsOfFile: key, encoding: .utf8))
        return Certificate(folder: folder, certificateFile: certificate, credentials: credentials)
    }

    @Test("With TLS credentials the server answers HTTPS that verifies against its certificate, and no plain HTTP")
    func servesHTTPS() throws {
        let certificate = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: certificate.folder) }
        // Large enough to be sent from the body's memory file, which TLS reads rather than sendfile(2)s.
        let text = Data(String(repeating: "BEGIN:VEVENT\r\nSUMMARY:Encrypted\r\nEND:VEVENT\r\n", count: 5000).utf8)
        let body = HTTPBody(text)
        #expect(body.file >= 0)
        let server = try startServer({ $0.tls = certificate.credentials }) { request in
            HTTPServerResponse(status: 200, headers: [("X-Path", request.path)], body: body)
        }
        let curl = try #require(
            ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "curl is needed as the HTTPS client")
        let output = certificate.folder.appendingPathComponent("body").path
        let run = try runProgram(
            curl,
            [
                "--silent", "--show-error", "--dump-header", "-", "--output", output, "--cacert",
                certificate.certificateFile, "https://127.0.0.1:\(server.port)/feed.ics",
            ])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.hasPrefix("HTTP/1.1 200"))
        #expect(run.out.contains("X-Path: /feed.ics"))
        #expect(fileContents(output) == text)

        let plain = try RawHTTPConnection(port: server.port, timeout: 3)
        try plain.send("GET /feed.ics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let answer = try? plain.readResponse()
        #expect(answer?.status != 200)
    }

    @Test("A key that is not PEM is an HTTPServerError naming the address, and nothing listens")
    func badKeyRefused() throws {
        let certificate = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: certificate.folder) }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.tls = TLSCredentials(certificatePEM: certificate.credentials.certificatePEM, keyPEM: "not a key")
        let logged = Locked<[String]>([])
        configuration.errorLog = { line in logged.mutate { $0.append(line) } }
        let error = #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: configuration) { _ in HTTPServerResponse(status: 200) }
        }
        #expect(error?.code == .tls, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("cannot listen on 127.0.0.1:0: libmicrohttpd: GnuTLS failed") == true)
        #expect(logged.value.first?.hasPrefix("GnuTLS failed") == true, "libmicrohttpd's log reaches errorLog")
    }
}
