import Foundation
import Synchronization

/// One `graph-ics` the demo runs: this same executable, in the demo's folder, with the demo's environment.
///
/// A child is spawned from a thread whose signal mask is empty, so that it gets SIGINT and SIGTERM as it
/// would from a shell (a child inherits the mask of the thread that spawns it); `serve` is stopped with
/// SIGTERM, which it answers by stopping gracefully.
final class DemoChild: @unchecked Sendable {
    private let process: Process
    private let listening = DispatchSemaphore(value: 0)

    private init(_ process: Process) {
        self.process = process
    }

    /// This executable (`/proc/self/exe`), so the demo runs the very graph-ics the user started.
    static var executable: URL {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        return URL(fileURLWithPath: path ?? CommandLine.arguments[0])
    }

    private static func process(_ arguments: [String], _ demo: DemoScript) -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = demo.folder.url
        process.environment = demo.childEnvironment
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        return process
    }

    /// Starts `process` from a thread with an empty signal mask.
    private static func launch(_ process: Process) throws {
        let failure = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            var mask = sigset_t()
            sigemptyset(&mask)
            pthread_sigmask(SIG_SETMASK, &mask, nil)
            do { try process.run() } catch { failure.withLock { $0 = "\(error)" } }
            done.signal()
        }.start()
        done.wait()
        if let message = failure.withLock({ $0 }) {
            throw CommandFailure(.ioError, "the demo cannot run \(executable.path): \(message)")
        }
    }

    /// Runs a step to its end, its output on this process's standard output and error (cut after
    /// `showingLines` lines of standard output when given); returns its exit status.
    static func run(_ arguments: [String], demo: DemoScript, showingLines: Int? = nil) throws -> Int32 {
        let process = process(arguments, demo)
        guard let limit = showingLines else {
            try launch(process)
            process.waitUntilExit()
            return process.terminationStatus
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        try launch(process)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let shown = lines.prefix(limit).joined(separator: "\n")
        demo.say(lines.count > limit ? shown + "\n… (\(lines.count - limit) more lines)" : shown)
        return process.terminationStatus
    }

    /// Runs a step without showing it; returns its exit status and standard output.
    static func capture(_ arguments: [String], demo: DemoScript) throws -> (Int32, Data) {
        let process = process(arguments, demo)
        let pipe = Pipe()
        process.standardOutput = pipe
        try launch(process)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// Starts a step that runs until stopped (`serve`); its standard error is passed on line by line, and
    /// ``waitUntilListening(seconds:)`` returns once it says it is listening.
    static func start(_ arguments: [String], demo: DemoScript) throws -> DemoChild {
        let process = process(arguments, demo)
        let pipe = Pipe()
        process.standardError = pipe
        let child = DemoChild(process)
        try launch(process)
        let reader = pipe.fileHandleForReading
        let terminal = demo.terminal
        Thread {
            var pending = Data()
            var told = false
            while case let chunk = reader.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...end)
                    terminal.err(line)
                    if !told && line.contains(": listening on ") {
                        told = true
                        child.listening.signal()
                    }
                }
            }
        }.start()
        return child
    }

    func waitUntilListening(seconds: Double) -> Bool {
        listening.wait(timeout: .now() + seconds) == .success
    }

    /// SIGTERM, then waits for the child to finish.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// A word as a shell would need it quoted.
    static func quoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=+@%,".contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
