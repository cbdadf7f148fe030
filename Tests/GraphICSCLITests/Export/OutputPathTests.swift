import Foundation
import GraphStandIn
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What `-o` does with each kind of path (docs/ics-output.md, "What -o does with each kind of path"): a regular
/// file or a new name is replaced by rename (keeping mode, owner and group), a symbolic link's target is
/// replaced and the link stays, and devices, FIFOs, sockets, `/dev/stdout` and process substitutions are
/// written straight through, never replaced. Also: an output that is the input is refused, and a reader
/// that goes away ends graph-ics with 141.
@Suite struct OutputPathTests {
    static let input = Package.fixture("graph/sample-week.json").path

    /// The calendar `convert` writes for ``input``, with DTSTAMP (the time of the run) normalised.
    static func expectedCalendar() throws -> String {
        let result = try graphICS(["convert", input])
        #expect(result.status == 0, "stderr: \(result.err)")
        return ICalendarText.normalisingTimestamps(result.out)
    }

    static func normalised(_ data: Data) -> String {
        ICalendarText.normalisingTimestamps(String(decoding: data, as: UTF8.self))
    }

    /// `lstat`'s file type bits of `path`.
    static func fileType(_ path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    static func status(_ path: String) throws -> stat {
        var status = stat()
        try #require(stat(path, &status) == 0, "stat \(path): \(String(cString: strerror(errno)))")
        return status
    }

    // MARK: Regular files and symbolic links

    /// Whether this process may act for other users (chown to them, setuid to nobody): root, and not only
    /// the root of a user namespace, where `scripts/test-tzdata` runs the suite (`unshare -r` maps root to
    /// one outside user, so chown to another fails with EINVAL).
    static let actsForOtherUsers: Bool = {
        guard geteuid() == 0 else { return false }
        guard let map = try? String(contentsOfFile: "/proc/self/uid_map", encoding: .utf8) else { return true }
        return map.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count == 3 && fields[0] == "0" && fields[1] == "0" && (UInt64(fields[2]) ?? 0) > 65_534
        }
    }()

    @Test("a symbolic link: the file it points to is replaced, beside it, and the link stays a link")
    func symbolicLink() throws {
        try withTemporaryDirectory { directory in
            let elsewhere = directory.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            let target = elsewhere.appendingPathComponent("week.ics")
            try Data("old\n".utf8).write(to: target)
            chmod(target.path, 0o640)
            let link = directory.appendingPathComponent("link.ics")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "elsewhere/week.ics")

            let result = try graphICS(["convert", Self.input, "-o", link.path])
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(Self.fileType(link.path) == S_IFLNK, "the link was replaced")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "elsewhere/week.ics")
            #expect(Self.normalised(try Data(contentsOf: target)) == (try Self.expectedCalendar()))
            #expect(try Self.status(target.path).st_mode & 0o777 == 0o640)
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == ["week.ics"])
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                    "elsewhere", "link.ics",
                ])
        }
    }

    @Test("a symbolic link to a file not there yet creates that file")
    func danglingSymbolicLink() throws {
        try withTemporaryDirectory { directory in
            let link = directory.appendingPathComponent("link.ics")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "new.ics")
            let result = try graphICS(["convert", Self.input, "-o", link.path])
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(Self.fileType(link.path) == S_IFLNK)
            let created = directory.appendingPathComponent("new.ics")
            #expect(Self.normalised(try Data(contentsOf: created)) == (try Self.expectedCalendar()))
        }
    }

    @Test("an existing file keeps its mode (and as root its owner and group); its other hard links keep the old text")
    func regularFileAttributesAndHardLinks() throws {
        try withTemporaryDirectory { directory in
            let output = directory.appendingPathComponent("week.ics")
            let old = Data("old\n".utf8)
            try old.write(to: output)
            chmod(output.path, 0o604)
            let asRoot = Self.actsForOtherUsers
            if asRoot {
                try #require(chown(output.path, 1234, 5678) == 0)
            } else {
                print(
                    "OutputPathTests: not root (or root of a user namespace only), so the owner and group cannot be"
                        + " another user's; checking the mode only"
                )
            }
            let otherName = directory.appendingPathComponent("hard-link.ics")
            try #require(link(output.path, otherName.path) == 0)

            let result = try graphICS(["convert", Self.input, "-o", output.path])
            #expect(result.status == 0, "stderr: \(result.err)")
            let now = try Self.status(output.path)
            #expect(now.st_mode & 0o7777 == 0o604)
            if asRoot {
                #expect(now.st_uid == 1234 && now.st_gid == 5678, "owner \(now.st_uid):\(now.st_gid)")
            }
            #expect(Self.normalised(try Data(contentsOf: output)) == (try Self.expectedCalendar()))
            #expect(try Data(contentsOf: otherName) == old, "the rename leaves the other hard link as it was")
        }
    }

    // MARK: Written straight through

    @Test("/dev/null: succeeds, and stays a device (as root too); also for a user who is not root")
    func devNull() throws {
        let result = try graphICS(["convert", Self.input, "-o", "/dev/null"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "stderr: \(result.err)")
        #expect(Self.fileType("/dev/null") == S_IFCHR, "/dev/null is no longer a device")
        // As root, run it once more as nobody: that used to fail with 73 (no temporary file in /dev).
        guard Self.actsForOtherUsers, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            let binary = GraphICSBinary.url
        else {
            print(
                "OutputPathTests: not root (or root of a user namespace only, or no setpriv): the run above already"
                    + " was a user's who is not root")
            return
        }
        let script =
            "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "
            + [binary.path, "convert", Self.input, "-o", "/dev/null"].map(shellQuoted).joined(separator: " ")
        let shell = try ShellRun(script)
        #expect(shell.status == 0, "as nobody: stderr: \(shell.err)")
        #expect(shell.err.isEmpty, "as nobody: stderr: \(shell.err)")
    }

    @Test("export -o /dev/null leaves the device alone")
    func exportToDevNull() throws {
        let account = try StandInAccount()
        account.standIn.addUser(
            displayName: "Megan Bowen", mail: "megan@contoso.example", mailboxTimeZone: "W. Europe Standard Time")
        let result = try account.run(
            ["export", "--week", "2026-W49", "-o", "/dev/null"], environment: account.tokenEnvironment())
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(Self.fileType("/dev/null") == S_IFCHR)
    }

    @Test("/dev/full: exit 74 with one sentence naming the device and the reason; the device stays")
    func devFull() throws {
        for arguments in [
            ["convert", Self.input, "-o", "/dev/full"],
            [
                "convert", Package.root.appendingPathComponent("fixtures/import/train-ticket.ics").path, "--tz", "UTC",
                "-o", "/dev/full",
            ],
        ] {
            let result = try graphICS(arguments)
            expectOneClearError(
                status: result.status, stdout: result.stdout, errLines: result.errLines, expected: 74,
                mentioning: ["/dev/full", "No space left on device"])
            #expect(Self.fileType("/dev/full") == S_IFCHR, "/dev/full is no longer a device")
        }
    }

    @Test("a FIFO is written to its reader, not replaced")
    func fifo() throws {
        try withTemporaryDirectory { directory in
            let fifo = directory.appendingPathComponent("pipe")
            try #require(mkfifo(fifo.path, 0o600) == 0)
            let received = Locked(Data())
            let done = DispatchSemaphore(value: 0)
            Thread {
                // Opening for reading waits for graph-ics to open it for writing.
                received.set(FileHandle(forReadingAtPath: fifo.path)?.readDataToEndOfFile() ?? Data())
                done.signal()
            }.start()
            let result = try graphICS(["convert", Self.input, "-o", fifo.path], timeout: 60)
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(done.wait(timeout: .now() + 30) == .success, "the FIFO's reader never saw an end")
            #expect(Self.normalised(received.value) == (try Self.expectedCalendar()))
            #expect(Self.fileType(fifo.path) == S_IFIFO, "the FIFO was replaced")
        }
    }

    @Test("a Unix socket is connected to and written, not replaced")
    func unixSocket() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("sock").path
            let listener = try Self.listeningSocket(path)
            defer { close(listener) }
            let received = Locked(Data())
            let done = DispatchSemaphore(value: 0)
            Thread {
                let connection = accept(listener, nil, nil)
                if connection >= 0 {
                    received.set(FileHandle(fileDescriptor: connection, closeOnDealloc: true).readDataToEndOfFile())
                }
                done.signal()
            }.start()
            let result = try graphICS(["convert", Self.input, "-o", path], timeout: 60)
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(done.wait(timeout: .now() + 30) == .success)
            #expect(Self.normalised(received.value) == (try Self.expectedCalendar()))
            #expect(Self.fileType(path) == S_IFSOCK)
        }
    }

    static func listeningSocket(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(descriptor, 1) == 0, "bind: \(String(cString: strerror(errno)))")
        return descriptor
    }

    @Test("/dev/stdout writes to standard output (a pipe here)")
    func devStdout() throws {
        let result = try graphICS(["convert", Self.input, "-o", "/dev/stdout"])
        #expect(result.status == 0, "stderr: \(result.err)")
        #expect(Self.normalised(result.stdout) == (try Self.expectedCalendar()))
    }

    @Test("/dev/stdout redirected to a file is written through that descriptor (appending with >>)")
    func devStdoutAppending() throws {
        let binary = try #require(GraphICSBinary.url)
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("log.ics")
            try Data("first line\n".utf8).write(to: file)
            let command = [binary.path, "convert", Self.input, "-o", "/dev/stdout"].map(shellQuoted)
            let shell = try ShellRun(command.joined(separator: " ") + " >> " + shellQuoted(file.path))
            #expect(shell.status == 0, "stderr: \(shell.err)")
            let text = Self.normalised(try Data(contentsOf: file))
            #expect(text == "first line\n" + (try Self.expectedCalendar()), "the file was replaced, not appended to")
        }
    }

    @Test("a process substitution, >(wc -c), gets the calendar")
    func processSubstitution() throws {
        guard let bash = ["/bin/bash", "/usr/bin/bash"].first(where: FileManager.default.isExecutableFile) else {
            print("OutputPathTests: no bash on this machine, so no process substitution to test")
            return
        }
        let binary = try #require(GraphICSBinary.url)
        try withTemporaryDirectory { directory in
            let count = directory.appendingPathComponent("count")
            let command = [binary.path, "convert", Self.input, "-o"].map(shellQuoted)
            let script =
                command.joined(separator: " ") + " >(wc -c > " + shellQuoted(count.path) + "); wait"
            let shell = try ShellRun("\(bash) -c " + shellQuoted(script))
            #expect(shell.status == 0, "stderr: \(shell.err)")
            #expect(waitUntil { fileText(count.path)?.hasSuffix("\n") == true })
            let bytes = try #require(fileText(count.path)).trimmingCharacters(in: .whitespacesAndNewlines)
            // DTSTAMP differs from run to run, but not in length.
            #expect(Int(bytes) == (try graphICS(["convert", Self.input])).stdout.count)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["count"])
        }
    }

    // MARK: The input is not an output

    @Test(
        "an output that is the input file is refused with 64 before anything is written",
        arguments: ["same", "link", "stdin"])
    func outputIsTheInput(how: String) throws {
        let binary = try #require(GraphICSBinary.url)
        try withTemporaryDirectory { directory in
            let ticket = directory.appendingPathComponent("c.ics")
            let original = try Data(
                contentsOf: Package.root.appendingPathComponent("fixtures/import/train-ticket.ics"))
            try original.write(to: ticket)
            let link = directory.appendingPathComponent("link.ics")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "c.ics")
            let quoted = shellQuoted
            let command: String
            switch how {
            case "same":
                command = [binary.path, "convert", ticket.path, "-o", ticket.path].map(quoted).joined(separator: " ")
            case "link":
                command = [binary.path, "convert", link.path, "-o", ticket.path].map(quoted).joined(separator: " ")
            default:
                command =
                    [binary.path, "convert", "-", "-o", link.path].map(quoted).joined(separator: " ") + " < "
                    + quoted(ticket.path)
            }
            let shell = try ShellRun(command)
            #expect(shell.status == 64, "stderr: \(shell.err)")
            let lines = shell.err.split(separator: "\n")
            #expect(
                lines.first?.hasPrefix("error: ") == true && lines.first?.contains("same file as the input") == true,
                "stderr: \(shell.err)")
            #expect(try Data(contentsOf: ticket) == original, "the input was changed")
            #expect(Self.fileType(link.path) == S_IFLNK)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["c.ics", "link.ics"])
        }
    }

    // MARK: A reader that goes away

    /// A Graph JSON file whose calendar is far larger than a pipe's buffer.
    static func largeInput(in directory: URL) throws -> URL {
        let events = try Package.graphEvents("graph/sample-week.json")
        var copies: [[String: Any]] = []
        for copy in 0..<100 {
            for var event in events {
                event["id"] = "\(event["id"] ?? "")-\(copy)"
                copies.append(event)
            }
        }
        let file = directory.appendingPathComponent("large.json")
        try JSONSerialization.data(withJSONObject: ["value": copies]).write(to: file)
        return file
    }

    @Test(
        "a closed pipe ends graph-ics silently with 141, also when SIGPIPE is ignored by whoever started it",
        arguments: ["", "trap '' PIPE; "])
    func brokenPipe(ignoring: String) throws {
        let binary = try #require(GraphICSBinary.url)
        try withTemporaryDirectory { directory in
            let input = try Self.largeInput(in: directory)
            let status = directory.appendingPathComponent("status")
            let errors = directory.appendingPathComponent("errors")
            let quoted = shellQuoted
            let script =
                ignoring + [binary.path, "convert", input.path].map(quoted).joined(separator: " ") + " 2> "
                + quoted(errors.path) + " | head -c 100 > /dev/null; echo ${PIPESTATUS[0]} > " + quoted(status.path)
            let shell = try ShellRun("/bin/bash -c " + quoted(script))
            #expect(shell.status == 0, "stderr: \(shell.err)")
            let code = try #require(fileText(status.path)).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(code == "141")
            let errorText = try #require(fileText(errors.path))
            #expect(errorText.isEmpty, "stderr: \(errorText)")
        }
    }

    @Test("a FIFO whose reader closes early: 141, silently, and the FIFO stays")
    func fifoReaderGoesAway() throws {
        try withTemporaryDirectory { directory in
            let input = try Self.largeInput(in: directory)
            let fifo = directory.appendingPathComponent("pipe")
            try #require(mkfifo(fifo.path, 0o600) == 0)
            Thread {
                let descriptor = open(fifo.path, O_RDONLY)
                var byte: UInt8 = 0
                _ = read(descriptor, &byte, 1)
                close(descriptor)
            }.start()
            let child = try SpawnedGraphICS(["convert", input.path, "-o", fifo.path], environment: [:], in: directory)
            let result = try child.wait(timeout: 60)
            #expect(result.status == 141, "signal \(String(describing: result.signal)); stderr: \(result.err)")
            #expect(result.stderr.isEmpty, "stderr: \(result.err)")
            #expect(Self.fileType(fifo.path) == S_IFIFO)
        }
    }
}

/// One `/bin/sh -c` run to its end, with standard output and error collected (for pipelines and
/// redirections the test needs a shell for).
struct ShellRun {
    var status: Int32
    var out: String
    var err: String

    init(_ script: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graph-ics-shell-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let err = folder.appendingPathComponent("err")
        let shell = try SpawnedShell(
            "(\(script)) > \(shellQuoted(out.path)) 2> \(shellQuoted(err.path))", in: folder)
        status = shell.waitForExit()
        self.out = fileText(out.path) ?? ""
        self.err = fileText(err.path) ?? ""
    }
}
