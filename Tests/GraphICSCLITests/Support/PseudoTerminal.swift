import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `graph-ics` run in its own session on a pseudo-terminal, as a person at a terminal runs it: the
/// terminal is its controlling terminal (`/dev/tty`), standard input is the terminal or a pipe, standard
/// output and error are pipes (collected). A test waits for text on the screen and types keys. Paths in the
/// arguments are absolute: the child runs in the test's working folder.
final class PseudoTerminalRun: @unchecked Sendable {
    let pid: pid_t
    private let master: Int32
    private var slave: Int32 = -1
    private let screen = Locked(Data())
    private let output = Locked(Data())
    private let errors = Locked(Data())
    private let readers = DispatchGroup()
    /// How much of the screen earlier `waitFor` calls consumed.
    private var seen = 0

    /// What standard input is.
    enum Input {
        /// The terminal itself.
        case terminal
        /// These bytes through a pipe (`cat ticket.ics | graph-ics import -i -`).
        case pipe(Data)
        /// No controlling terminal at all: a new session without one, standard input `/dev/null`.
        case noTerminal
    }

    init(
        _ arguments: [String], input: Input = .terminal, environment: [String: String]
    ) throws {
        let binary = try #require(GraphICSBinary.url, "no graph-ics executable; run swift build first")
        // posix_openpt, unlockpt and ptsname are not imported into Swift: their ioctls on /dev/ptmx
        // (TIOCSPTLCK 0x40045431, TIOCGPTN 0x80045430).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(
            master >= 0 && ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0,
            "no pseudo-terminal")
        let slavePath = "/dev/pts/\(number)"
        // Held here until the child is gone: while no process has the terminal open, reading the master
        // fails (EIO), and graph-ics, its input a pipe, opens /dev/tty only after it started.
        slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(slave >= 0, "cannot open \(slavePath)")
        var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)

        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        var inPipe: [Int32] = [-1, -1]
        // Close-on-exec at once (pipe2 is not imported): a child another test spawns meanwhile must not keep
        // a pipe open, or the reader here (or graph-ics reading its input) would never see the end.
        try #require(pipe(&outPipe) == 0 && pipe(&errPipe) == 0)
        if case .pipe = input { try #require(pipe(&inPipe) == 0) }
        for descriptor in outPipe + errPipe + inPipe where descriptor >= 0 {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch input {
        case .terminal:
            // Opened after setsid, the terminal becomes the session's controlling terminal.
            posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        case .pipe:
            posix_spawn_file_actions_addopen(&actions, 3, slavePath, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
            posix_spawn_file_actions_addclose(&actions, 3)
        case .noTerminal:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        // Every other descriptor is close-on-exec, so no other child spawned meanwhile keeps a pipe open.
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        // POSIX_SPAWN_SETSID (0x80, glibc) is not imported into Swift.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | 0x80))

        var variables = ProcessInfo.processInfo.environment
        for name in variables.keys
        where (name.hasPrefix("GRAPH_ICS_") && name != "GRAPH_ICS_BINARY")
            || ["NO_COLOR", "VISUAL", "EDITOR"].contains(name)
        {
            variables[name] = nil
        }
        variables["TERM"] = "xterm"
        variables.merge(environment) { _, new in new }
        let argv = ([binary.path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, binary.path, &actions, &attributes, argv, envp)
        try #require(result == 0, "posix_spawn failed: \(result)")
        self.pid = pid
        close(outPipe[1])
        close(errPipe[1])
        if inPipe[0] >= 0 { close(inPipe[0]) }

        drain(master, into: screen)
        drain(outPipe[0], into: output)
        drain(errPipe[0], into: errors)
        if case .pipe(let data) = input {
            let descriptor = inPipe[1]
            DispatchQueue.global().async {
                data.withUnsafeBytes { _ = write(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
            }
        }
    }

    deinit {
        kill(pid, SIGKILL)
        if slave >= 0 { close(slave) }
        close(master)
    }

    /// Reads `descriptor` until it ends (the terminal's master ends with EIO when the child is gone).
    private func drain(_ descriptor: Int32, into buffer: Locked<Data>) {
        readers.enter()
        Thread { [readers] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                buffer.mutate { $0.append(contentsOf: chunk[0..<count]) }
            }
            if descriptor != self.master { close(descriptor) }
            readers.leave()
        }.start()
    }

    /// The terminal's output so far, without the carriage returns the terminal adds.
    var screenText: String { String(decoding: screen.value, as: UTF8.self).replacingOccurrences(of: "\r", with: "") }

    /// Waits until `text` appears on the terminal after what earlier waits saw; returns the screen up to it.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = defaultTimeout) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let screen = screenText
            let unseen = screen.dropFirst(seen)
            if let range = unseen.range(of: text) {
                let upTo = String(screen[..<range.upperBound])
                seen = screen.distance(from: screen.startIndex, to: range.upperBound)
                return upTo
            }
            usleep(20_000)
        }
        throw PseudoTerminalTimeout(waitingFor: text, screen: screenText, errors: errorText)
    }

    /// Types `text` on the terminal (`"\u{03}"` is Ctrl-C).
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(master, &bytes, bytes.count)
    }

    var errorText: String { String(decoding: errors.value, as: UTF8.self) }

    /// Waits for the process to end; its exit status (128 + n for a signal), stdout and stderr.
    func finish(timeout: Double = defaultTimeout) throws -> (status: Int32, out: String, err: String) {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                throw PseudoTerminalTimeout(waitingFor: "the end of graph-ics", screen: screenText, errors: errorText)
            }
            usleep(20_000)
        }
        close(slave)
        slave = -1
        _ = readers.wait(timeout: .now() + 10)
        let signal = status & 0x7F
        return (
            signal == 0 ? (status >> 8) & 0xFF : 128 + signal, String(decoding: output.value, as: UTF8.self),
            errorText
        )
    }
}

/// Text that did not come on the terminal in time.
struct PseudoTerminalTimeout: Error, CustomStringConvertible {
    var waitingFor: String
    var screen: String
    var errors: String
    var description: String { "waited for '\(waitingFor)'; the terminal showed:\n\(screen)\nstderr:\n\(errors)" }
}
