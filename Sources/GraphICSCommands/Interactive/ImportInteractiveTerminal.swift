import Foundation
import ICalBridge
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal `import --interactive` asks on: `/dev/tty`, so that the `.ics` may come through a pipe
/// (`curl … | graph-ics import -i -`). Cards and prompts go there; the import's report lines stay on
/// standard error. Colour only when it is a terminal and `NO_COLOR` is not set.
final class ImportInteractiveTerminal: Sendable {
    let descriptor: Int32
    let colour: Bool
    /// The terminal's settings while a key is being read in non-canonical mode, to put back.
    private let saved = Mutex<termios?>(nil)

    private init(descriptor: Int32, colour: Bool) {
        self.descriptor = descriptor
        self.colour = colour
    }

    /// Opens `/dev/tty`; without a controlling terminal, a usage error pointing at `--dry-run`.
    static func opened(environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError)
        -> ImportInteractiveTerminal
    {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UsageError(
                "--interactive asks on the terminal, and graph-ics has none (/dev/tty cannot be opened); use "
                    + "--dry-run to see what the import would do")
        }
        return ImportInteractiveTerminal(
            descriptor: descriptor, colour: isatty(descriptor) == 1 && environment["NO_COLOR"] == nil)
    }

    /// Writes `text` as it is (callers make text from files printable).
    func write(_ text: String) {
        var text = text
        _ = text.withUTF8 { POSIXFile.writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }

    /// `text` in bold, when colours are on.
    func bold(_ text: String) -> String {
        colour ? "\u{1B}[1m" + text + "\u{1B}[0m" : text
    }

    /// Shows `prompt` and reads one key (the terminal in non-canonical mode without echo, Ctrl-C still a
    /// signal), echoing it; line ends and spaces are passed over. Nil at the end of the input.
    func key(_ prompt: String) -> Character? {
        // Non-canonical before the prompt shows, so that a key typed as soon as it shows is read at once.
        rawMode()
        defer { restore() }
        write(prompt)
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else {
                write("\n")
                return nil
            }
            if byte == 0x0A || byte == 0x0D || byte == 0x20 { continue }
            guard byte < 0x80 else { continue }
            let key = Character(Unicode.Scalar(byte))
            write(String(key) + "\n")
            return Character(key.lowercased())
        }
    }

    /// Puts back the terminal settings a key read changed (also from the interruption handler).
    func restore() {
        guard
            let original = saved.withLock({ state -> termios? in
                defer { state = nil }
                return state
            })
        else { return }
        var settings = original
        tcsetattr(descriptor, TCSANOW, &settings)
    }

    private func rawMode() {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return }
        saved.withLock { $0 = settings }
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(descriptor, TCSANOW, &settings)
    }

    // MARK: The editor

    /// `$VISUAL`, else `$EDITOR`, else `vi`.
    static func editor(_ environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return "vi"
    }

    /// The modification time the form's file is given before the editor runs (1 January 2000): any save
    /// changes it, even one within the file system's timestamp granularity of the write.
    private static let unsavedTime = timespec(tv_sec: 946_684_800, tv_nsec: 0)

    /// Writes `text` to a private temporary file, runs `editor` on it with this terminal as its input and
    /// output (through `sh`, so `EDITOR='code --wait'` works), and returns the file's text after the editor
    /// exits; nil when the editor quit without saving (the file's inode and modification time unchanged).
    /// `running` is told the editor's process id once it started and nil once it ended (before it is reaped,
    /// so that the id cannot be reused while it is known). Throws a sentence when the file cannot be made or
    /// the editor fails.
    func edit(_ text: String, editor: String, running: (pid_t?) -> Void) throws(FormError) -> String? {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        guard let (file, path) = POSIXFile.makeTemporary(prefix: folder + "/graph-ics-event-") else {
            throw FormError("cannot make a temporary file in \(folder): \(POSIXFile.describe(errno))")
        }
        Interruption.register(path)
        defer {
            unlink(path)
            Interruption.unregister(path)
        }
        var bytes = text
        let failure = bytes.withUTF8 { POSIXFile.writeAll(file, UnsafeRawBufferPointer($0)) }
        var times = [Self.unsavedTime, Self.unsavedTime]
        _ = futimens(file, &times)
        var written = stat()
        _ = fstat(file, &written)
        close(file)
        if let failure { throw FormError("cannot write \(path): \(POSIXFile.describe(failure))") }
        let status = run(["/bin/sh", "-c", Self.command(editor), editor, path], running: running)
        guard status == 0 else {
            throw FormError(
                "the editor ('\(editor)') \(status < 0 ? "could not be started" : "exited with status \(status)")")
        }
        var saved = stat()
        if stat(path, &saved) == 0, saved.st_ino == written.st_ino,
            saved.st_mtim.tv_sec == Self.unsavedTime.tv_sec, saved.st_mtim.tv_nsec == Self.unsavedTime.tv_nsec
        {
            return nil
        }
        guard let bytes = Self.contents(of: path) else { throw FormError("cannot read \(path)") }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The shell command that runs `editor` on the file (`"$@"`): `exec`ed when it is plain words, so that
    /// a signal sent to the editor's process reaches the editor itself rather than only the shell.
    static func command(_ editor: String) -> String {
        let words = editor.split(separator: " ")
        let plain =
            !editor.contains { ";&|<>()$`\\\n\"'*?[]{}~#".contains($0) } && !(words.first?.contains("=") ?? true)
        return (plain ? "exec " : "") + editor + " \"$@\""
    }

    /// The bytes of the saved form, read with read(2). (With Foundation's `FileManager.contents(atPath:)`
    /// LeakSanitizer reported the buffer it read the form into as leaked, in CI's sanitizer run.)
    private static func contents(of path: String) -> [UInt8]? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            bytes += chunk[..<count]
        }
    }

    /// Runs `arguments` with the terminal as standard input, output and error and the signals a shell gives
    /// (graph-ics ignores some), waits for it, and returns its exit status (-1: not started, 128 + n: signal).
    /// `running` gets the process id once started, and nil once the process ended but before it is reaped.
    /// The terminal's settings are put back when the process was ended by a signal.
    private func run(_ arguments: [String], running: (pid_t?) -> Void) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for target in Int32(0)...2 { posix_spawn_file_actions_adddup2(&actions, descriptor, target) }
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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var settings = termios()
        let hasSettings = tcgetattr(descriptor, &settings) == 0
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ) == 0 else { return -1 }
        running(pid)
        // Waited for without reaping first (WNOWAIT), so the id stays the editor's until `running` forgot it.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
        running(nil)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let signal = status & 0x7F
        if signal != 0, hasSettings { tcsetattr(descriptor, TCSANOW, &settings) }
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
