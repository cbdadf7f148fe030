internal import CGlibc
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program a test starts: the tests' one process spawner, and their one pseudo-terminal driver.
///
/// The child gets every signal at its default disposition and none blocked, as a shell would give it (the
/// test runner's threads block some, and a child inherits its spawning thread's mask). It gets no descriptor
/// of the test process's but its three standard streams, so that no other child keeps a pipe of this one
/// open. Collected output is drained on threads of its own while the child runs (a child blocked on a full
/// pipe would never exit).
///
/// With a pseudo-terminal (a stream is ``Output/terminal`` or ``Input/terminal``, or `terminal` is true),
/// the terminal is 120 columns by 40 rows and everything written to it is kept (``screen``); in a new
/// session (`newSession`) it becomes the child's controlling terminal (`/dev/tty`).
public final class ChildProcess: @unchecked Sendable {
    /// What the child reads on standard input.
    public enum Input: Sendable {
        /// `/dev/null`: a command that reads it sees an empty input at once.
        case null
        /// These bytes, written through a pipe (like `curl … | graph-ics convert -`), then the pipe closed.
        case bytes(Data)
        /// The pseudo-terminal.
        case terminal
    }

    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        /// A pipe, read into ``output`` or ``errors``.
        case collected
        /// `/dev/null`.
        case null
        /// The pseudo-terminal, read into ``screen``.
        case terminal
    }

    public let pid: Glibc.pid_t
    /// `executable` and `arguments` as the child was started, for messages.
    public let commandLine: [String]
    private let started = ContinuousClock.now
    private let outputBuffer = Locked(Data())
    private let errorBuffer = Locked(Data())
    private let screenBuffer = Locked(Data())
    private let readers = DispatchGroup()
    /// The pseudo-terminal's master side, -1 without one (closed by its reader).
    private let master: Int32
    /// The terminal's side, held until the child is gone: while no process has the terminal open, reading
    /// the master fails (EIO), and a child may open `/dev/tty` only after it started.
    private var slave: Int32 = -1
    private let ended = Locked<ChildExit?>(nil)
    /// How much of the screen earlier ``waitForScreen(_:timeout:)`` calls consumed.
    private var seen = 0

    /// Starts `executable` (an absolute path) with `arguments`, the environment `environment` (the test
    /// process's own when nil), in `directory` (the test's working folder when nil).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        stdin: Input = .null, stdout: Output = .collected, stderr: Output = .collected, newSession: Bool = false,
        terminal: Bool = false
    ) throws {
        commandLine = [executable] + arguments
        var descriptors: [Int32] = []  // the test's ends and the child's, closed here when the spawn fails
        func makePipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                throw ChildProcessError(description: "pipe: \(String(cString: strerror(errno)))")
            }
            // Close-on-exec at once (pipe2 is not imported): a child spawned some other way must not keep it.
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            descriptors += ends
            return (ends[0], ends[1])
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var inputPipe: (read: Int32, write: Int32)?
        switch stdin {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .bytes:
            let ends = try makePipe()
            posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
            inputPipe = ends
        case .terminal: break
        }
        var collected: [(read: Int32, into: Locked<Data>)] = []
        var childEnds: [Int32] = []
        for (stream, output, buffer) in [(Int32(1), stdout, outputBuffer), (Int32(2), stderr, errorBuffer)] {
            switch output {
            case .collected:
                let ends = try makePipe()
                posix_spawn_file_actions_adddup2(&actions, ends.write, stream)
                collected.append((ends.read, buffer))
                childEnds.append(ends.write)
            case .null: posix_spawn_file_actions_addopen(&actions, stream, "/dev/null", O_WRONLY, 0)
            case .terminal: break
            }
        }

        var onTerminal: [Int32] = []
        if case .terminal = stdin { onTerminal.append(0) }
        if case .terminal = stdout { onTerminal.append(1) }
        if case .terminal = stderr { onTerminal.append(2) }
        if terminal || !onTerminal.isEmpty {
            // posix_openpt, unlockpt and ptsname are not imported into Swift: their ioctls on /dev/ptmx
            // (TIOCSPTLCK 0x40045431, TIOCGPTN 0x80045430; the generic Linux numbers, x86_64 and arm64).
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0
            else {
                if master >= 0 { close(master) }
                for descriptor in descriptors { close(descriptor) }
                throw ChildProcessError(description: "no pseudo-terminal")
            }
            let slavePath = "/dev/pts/\(number)"
            slave = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC)
            var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
            // Opened first in the child and without O_NOCTTY: in a new session the terminal becomes its
            // controlling terminal, even when no standard stream is on it.
            posix_spawn_file_actions_addopen(&actions, 3, slavePath, O_RDWR, 0)
            for stream in onTerminal { posix_spawn_file_actions_adddup2(&actions, 3, stream) }
        } else {
            master = -1
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let directory { posix_spawn_file_actions_addchdir_np(&actions, directory) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        // POSIX_SPAWN_SETSID (0x80, glibc) is not imported into Swift.
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (newSession ? 0x80 : 0)))

        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let code = withCStrings(commandLine) { argv in
            withCStrings(variables) { envp in posix_spawn(&child, executable, &actions, &attributes, argv, envp) }
        }
        guard code == 0 else {
            for descriptor in descriptors { close(descriptor) }
            if slave >= 0 { close(slave) }
            if master >= 0 { close(master) }
            throw ChildProcessError(description: "cannot start \(executable): \(String(cString: strerror(code)))")
        }
        pid = child
        for end in childEnds { close(end) }
        if let inputPipe { close(inputPipe.read) }

        for (descriptor, buffer) in collected { drain(descriptor, into: buffer, closing: true) }
        if master >= 0 { drain(master, into: screenBuffer, closing: true) }
        if case .bytes(let data) = stdin, let descriptor = inputPipe?.write {
            readers.enter()
            // With SIGPIPE blocked on the writing thread, a child that exits without reading its input makes
            // the write fail with EPIPE instead of killing the test process.
            Thread { [readers] in
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                data.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count, let base = raw.baseAddress {
                        let count = write(descriptor, base + offset, raw.count - offset)
                        if count < 0, errno == EINTR { continue }
                        guard count > 0 else { break }
                        offset += count
                    }
                }
                close(descriptor)
                readers.leave()
            }.start()
        }
    }

    deinit {
        if ended.value == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        if slave >= 0 { close(slave) }
    }

    /// Reads `descriptor` on a thread of its own until it ends (the terminal's master ends with EIO when no
    /// process has the terminal open any more).
    private func drain(_ descriptor: Int32, into buffer: Locked<Data>, closing: Bool) {
        readers.enter()
        Thread { [readers] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(descriptor, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                buffer.mutate { $0.append(contentsOf: chunk[0..<count]) }
            }
            if closing { close(descriptor) }
            readers.leave()
        }.start()
    }

    /// Sends `signal` to the child (nothing once it has been waited for).
    public func signal(_ signal: Int32) {
        if ended.value == nil { kill(pid, signal) }
    }

    /// Whether the child has not ended yet (it is waited for when it has).
    public var isRunning: Bool { poll() == nil }

    /// What the child wrote on standard output, standard error and the terminal so far.
    public var output: Data { outputBuffer.value }
    public var errors: Data { errorBuffer.value }
    public var screen: Data { screenBuffer.value }

    /// The terminal's output so far as text, without the carriage returns the terminal adds.
    public var screenText: String {
        String(decoding: screen, as: UTF8.self).replacingOccurrences(of: "\r", with: "")
    }

    /// Types `text` on the terminal (`"\u{03}"` is Ctrl-C).
    public func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(master, &bytes, bytes.count)
    }

    /// Waits until `text` appears on the terminal after what earlier waits saw; returns the screen up to it.
    @discardableResult
    public func waitForScreen(_ text: String, timeout: Double) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let screen = screenText
            if let range = screen.dropFirst(seen).range(of: text) {
                seen = screen.distance(from: screen.startIndex, to: range.upperBound)
                return String(screen[..<range.upperBound])
            }
            usleep(20_000)
        }
        throw ChildProcessError(
            description: "waited for '\(text)'; the terminal showed:\n\(screenText)\nstderr:\n"
                + String(decoding: errors, as: UTF8.self))
    }

    /// Waits for the child to end, calling `sample` every 2 ms meanwhile; nil when it is still running after
    /// `timeout` seconds (it is left running).
    public func waitForExit(timeout: Double, sample: () -> Void = {}) -> ChildExit? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(min(timeout, 86_400) * 1000))
        while true {
            sample()
            if let exit = poll() { return exit }
            if ContinuousClock.now > deadline { return nil }
            usleep(2_000)
        }
    }

    /// Waits for the child to end; when it takes longer than `timeout` seconds it is killed and this throws.
    public func wait(timeout: Double, sample: () -> Void = {}) throws -> ChildExit {
        if let exit = waitForExit(timeout: timeout, sample: sample) { return exit }
        kill(pid, SIGKILL)
        _ = waitForExit(timeout: 10)
        throw ChildProcessError(
            description: "\(commandLine.joined(separator: " ")) did not finish in \(timeout) s", timedOut: true)
    }

    /// The child's end once it has ended (waiting for it and for its output then), else nil.
    private func poll() -> ChildExit? {
        if let exit = ended.value { return exit }
        var status: Int32 = 0
        var usage = rusage()
        let done = wait4(pid, &status, WNOHANG, &usage)
        guard done == pid || (done < 0 && errno != EINTR) else { return nil }
        let elapsed = started.duration(to: .now)
        if slave >= 0 {
            close(slave)
            slave = -1
        }
        _ = readers.wait(timeout: .now() + 10)
        let signalNumber = status & 0x7F
        let exit = ChildExit(
            status: done < 0 || signalNumber != 0 ? nil : (status >> 8) & 0xFF,
            signal: done < 0 || signalNumber == 0 ? nil : signalNumber, stdout: output, stderr: errors,
            screen: screen, maxResidentKiB: Int(usage.ru_maxrss),
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        ended.set(exit)
        return exit
    }
}

/// How a ``ChildProcess`` ended and what it wrote.
public struct ChildExit: Sendable {
    /// The exit status, nil when a signal ended the process.
    public var status: Int32?
    /// The signal that ended the process, nil when it exited.
    public var signal: Int32?
    public var stdout: Data
    public var stderr: Data
    /// What the child wrote on the terminal, carriage returns and all.
    public var screen: Data
    /// `wait4`'s `ru_maxrss`: the child's peak resident memory in KiB, or the spawning process's own peak at
    /// the spawn when that was larger (a vfork child inherits it).
    public var maxResidentKiB: Int
    /// Wall-clock seconds from the start to the exit.
    public var seconds: Double

    /// The status as a shell reports it: the exit status, or 128 + the signal.
    public var shellStatus: Int32 { status ?? 128 + (signal ?? 0) }
    public var out: String { String(decoding: stdout, as: UTF8.self) }
    public var err: String { String(decoding: stderr, as: UTF8.self) }
}

/// A child that could not be started, or did not end (or show a text) in time.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
    /// Whether the child was killed for taking too long.
    public var timedOut = false
}

/// `text` in single quotes for `/bin/sh`.
public func shellQuoted(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
}

/// Calls `body` with `strings` as a NULL-terminated C array (argv, envp).
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { buffer in
        // A buffer of a non-empty array always has a base address.
        guard let base = buffer.baseAddress else { preconditionFailure("empty argument vector") }
        return body(base)
    }
}
