import Foundation
import GraphICS
import ICalBridge
import Synchronization

/// `graph-ics import --interactive`: a card per planned event on the terminal, then
/// `Import? [y]es [n]o [e]dit [a]ll remaining [q]uit`. Each event answered yes (or edited) is imported at
/// once through ``EventImporter``, so what was created is in the calendar whatever comes next; `a` imports
/// the rest without asking, `q` (or the end of the terminal's input) stops, importing nothing more.
///
/// Ctrl-C at the prompt ends at once and says what was created so far; during a create it waits for that
/// event to be finished (a series with its follow-ups), so nothing is left half-created. A SIGINT, SIGTERM
/// or SIGHUP while the editor runs ends the editor (SIGTERM, then SIGKILL after 3 seconds) and then the run.
struct ImportInteractive {
    let terminal: ImportInteractiveTerminal
    let userZone: ResolvedZone
    let json: Bool
    let environment: [String: String]

    init(
        terminal: ImportInteractiveTerminal, userZone: ResolvedZone, json: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.terminal = terminal
        self.userZone = userZone
        self.json = json
        self.environment = environment
    }

    /// The help of `-i, --interactive`.
    static let help =
        "Show each event as a card and ask: [y]es, [n]o, [e]dit (in $VISUAL, else $EDITOR, else vi), [a]ll "
        + "remaining, [q]uit; answers come from the terminal, so the file may be piped. An edited event keeps "
        + "its UID, so importing the same file again later skips it rather than undoing the edit."

    /// `--interactive`, refused with `--dry-run` (which asks nothing).
    static func checked(_ interactive: Bool, dryRun: Bool) throws(UsageError) -> Bool {
        guard !(interactive && dryRun) else {
            throw UsageError("--interactive asks before importing and --dry-run imports nothing: use one of them")
        }
        return interactive
    }

    static let prompt = "Import? [y]es [n]o [e]dit [a]ll remaining [q]uit "

    /// Asks about every item, imports the ones accepted, and reports like a plain import.
    func run(
        _ items: [ImportItem], earlierFailures: [ImportResult], files: Int, session: Session, output: Terminal
    ) throws -> ExitStatus {
        let importer = EventImporter(client: session.client, displayZone: userZone)
        let progress = ImportInteractiveProgress(earlier: earlierFailures)
        Interruption.handOver { signal in
            switch progress.signalArrived(signal) {
            case .endNow: end(progress, signal: signal, output: output)
            case .afterSending: terminal.write("\nStopping once the event being imported is complete…\n")
            case .endEditor:
                progress.signalEditor(SIGTERM)
                DispatchQueue.global().asyncAfter(deadline: .now() + 3) { progress.signalEditor(SIGKILL) }
            case .ignored: break
            }
        }
        let lookup = Self.lookUp(items, importer)
        var index = 0
        while index < items.count {
            let card = ImportInteractiveCard(
                event: items[index].event, userZone: userZone, lookup: lookup.results?[index],
                lookupFailure: lookup.reason, clock: EventWhen(session.config, days: .short))
            let cardText = card.lines(colour: terminal.colour).joined(separator: "\n")
            terminal.write("\n" + cardText + "\n")
            var stopped: (any Error)?
            let answer = ask(items[index], progress, output)
            // A SIGTERM or SIGHUP that came while the editor ran.
            if let signal = progress.pendingSignal { end(progress, signal: signal, output: output) }
            switch answer {
            case .accept(let item, let edited):
                stopped = send([item], edited: edited, importer, progress, output)
            case .skip(let note):
                skip(items[index], note: note, progress, output)
            case .all:
                stopped = send(Array(items[index...]), edited: [], importer, progress, output)
                index = items.count
            case .quit:
                for item in items[index...] { skip(item, note: "not asked: quit", progress, output) }
                index = items.count
            }
            index += 1
            if let signal = progress.pendingSignal { end(progress, signal: signal, output: output) }
            if let stopped {
                for item in items[min(index, items.count)...] {
                    skip(item, note: "not asked: the import stopped", progress, output)
                }
                return try finish(progress, files: files, output: output, stoppedBy: stopped)
            }
        }
        return try finish(progress, files: files, output: output, stoppedBy: nil)
    }

    /// What the user chose for one event.
    enum Answer {
        /// Import this item (as edited: the fields changed).
        case accept(ImportItem, edited: [String])
        case skip(note: String)
        case all
        case quit
    }

    /// Asks until the answer is one of the keys; `e` opens the editor, which ends in an answer itself.
    private func ask(_ item: ImportItem, _ progress: ImportInteractiveProgress, _ output: Terminal) -> Answer {
        while true {
            let prompt = terminal.colour ? "\u{1B}[1;36m" + Self.prompt + "\u{1B}[0m" : Self.prompt
            switch terminal.key(prompt) {
            case "y": return .accept(item, edited: [])
            case "n": return .skip(note: "answered no")
            case "a": return .all
            case "q", nil: return .quit
            case "e":
                if EventImporter.isCancellation(item.event) {
                    terminal.write("A cancellation has nothing to edit: answer y to cancel the event, or n.\n")
                    continue
                }
                if let answer = edit(item, progress, output) { return answer }
            default:
                terminal.write("Answer y (import it), n (skip it), e (edit it first), a (import all the rest) or q.\n")
            }
        }
    }

    /// Opens the form until it reads: unchanged imports the event as it was, emptied skips it, edited
    /// imports the edited event. The same error twice in a row asks whether to edit again, skip or quit.
    /// Nil (ask again) when the editor could not run or quit without saving. A signal that came while the
    /// editor ran ends graph-ics once the editor is gone.
    private func edit(_ item: ImportItem, _ progress: ImportInteractiveProgress, _ output: Terminal) -> Answer? {
        let form = ImportInteractiveForm(event: item.event, userZone: userZone)
        let editor = ImportInteractiveTerminal.editor(environment)
        var text = form.text()
        var lastError: String?
        while true {
            let edited: String?
            do throws(FormError) {
                edited = try progress.editing { () throws(FormError) in
                    try terminal.edit(text, editor: editor) { progress.editorRunning($0) }
                }
            } catch {
                if let signal = progress.pendingSignal { end(progress, signal: signal, output: output) }
                terminal.write(error.message + "; the event was not changed.\n")
                return nil
            }
            if let signal = progress.pendingSignal { end(progress, signal: signal, output: output) }
            guard let edited else {
                terminal.write("The editor quit without saving the form: nothing was imported.\n")
                return nil
            }
            do throws(FormError) {
                guard let values = try form.read(edited) else { return .skip(note: "the form was emptied") }
                let changed = form.changes(in: values)
                guard !changed.isEmpty else { return .accept(item, edited: []) }
                var changedItem = item
                changedItem.event = try form.apply(values)
                return .accept(changedItem, edited: changed)
            } catch {
                if error.message == lastError {
                    switch afterRepeatedError(error.message) {
                    case .editAgain: break
                    case .skip: return .skip(note: "the form had an error: " + error.message)
                    case .quit: return .quit
                    }
                }
                lastError = error.message
                text = Self.withoutError(edited, error: error.message)
            }
        }
    }

    static let repeatedErrorPrompt = "[e]dit again [s]kip this event [q]uit "

    private enum AfterError { case editAgain, skip, quit }

    /// Asks what to do about a form that came back with the same error as before.
    private func afterRepeatedError(_ message: String) -> AfterError {
        terminal.write("The form has the same error again: \(message).\n")
        let prompt =
            terminal.colour ? "\u{1B}[1;36m" + Self.repeatedErrorPrompt + "\u{1B}[0m" : Self.repeatedErrorPrompt
        while true {
            switch terminal.key(prompt) {
            case "e": return .editAgain
            case "s", "n": return .skip
            case "q", nil: return .quit
            default: terminal.write("Answer e (open the form again), s (skip this event) or q (quit).\n")
            }
        }
    }

    /// The edited text with `error` at the top instead of an earlier error.
    static func withoutError(_ text: String, error: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("# error: ") }
        return "# error: " + error + "\n" + lines.joined(separator: "\n")
    }

    /// Imports `items`, printing each result line as the plain import does; returns what stopped the run.
    private func send(
        _ items: [ImportItem], edited: [String], _ importer: EventImporter, _ progress: ImportInteractiveProgress,
        _ output: Terminal
    ) -> (any Error)? {
        let report = progress.sending {
            importer.run(items) { result in
                var result = result
                if !edited.isEmpty, result.action == .created || result.action == .updated {
                    result.note = "as edited: " + edited.joined(separator: ", ")
                }
                progress.add(result)
                output.err(result.line)
            }
        }
        if report.stoppedBy != nil {
            // Results the run reported only in its report (the events it did not reach).
            for result in report.results where !progress.has(result) { progress.add(result) }
        }
        return report.stoppedBy
    }

    /// The summary (and `--json`), as a plain import reports.
    private func finish(
        _ progress: ImportInteractiveProgress, files: Int, output: Terminal, stoppedBy: (any Error)?
    ) throws -> ExitStatus {
        let report = ImportReport(results: progress.results)
        output.note("\(files) file(s): \(report.summary)")
        if json {
            var data = try report.jsonData()
            data.append(0x0A)
            output.out(String(decoding: data, as: UTF8.self))
        }
        if let stoppedBy {
            let failure = FetchFailure.failure(stoppedBy) ?? CommandFailure(.unavailable, "\(stoppedBy)")
            output.error(failure.message + " Run the same import again to continue; nothing is duplicated.")
            return failure.status
        }
        return report.count(.failed) > 0 ? .partlyFailed : .ok
    }

    /// Ends graph-ics after a signal: the terminal put back, what was created so far said, 128 + signal.
    private func end(_ progress: ImportInteractiveProgress, signal: Int32, output: Terminal) -> Never {
        terminal.restore()
        terminal.write("\n")
        let created = progress.results.filter { $0.action == .created || $0.action == .updated }
        let names = created.map { "\"" + PrintableText.quoted($0.subject ?? $0.uid) + "\"" }
        output.error(
            "interrupted; nothing half-created. "
                + (created.isEmpty
                    ? "No event was imported."
                    : "Imported so far: \(created.count) event(s): " + names.joined(separator: ", ") + ".")
                + " Run the same import again to continue: what was imported is skipped.")
        _exit(128 + signal)
    }

    /// What the duplicate lookup says of each item (``EventImporter/preview(_:)``), or why it could not look.
    static func lookUp(_ items: [ImportItem], _ importer: EventImporter) -> (results: [ImportResult]?, reason: String?)
    {
        do {
            return (try importer.preview(items), nil)
        } catch {
            return (nil, FetchFailure.failure(error)?.message ?? "\(error)")
        }
    }

    /// Reports `item` as skipped, with why.
    private func skip(_ item: ImportItem, note: String, _ progress: ImportInteractiveProgress, _ output: Terminal) {
        let result = ImportResult(
            file: item.file, uid: item.event.sourceUID, recurrenceID: item.event.recurrenceID,
            subject: item.event.payload.subject, action: .skipped, note: note)
        progress.add(result)
        output.err(result.line)
    }
}

/// The results of an interactive import so far, and what a signal arriving now must do: shared between the
/// asking thread and the signal handler's queue.
final class ImportInteractiveProgress: Sendable {
    private enum Phase { case asking, sending, editing }

    private struct State {
        var results: [ImportResult]
        var phase = Phase.asking
        var pendingSignal: Int32?
        /// The editor's process while it runs.
        var editor: pid_t?
    }

    private let state: Mutex<State>

    init(earlier: [ImportResult]) {
        state = Mutex(State(results: earlier))
    }

    var results: [ImportResult] { state.withLock { $0.results } }
    var pendingSignal: Int32? { state.withLock { $0.pendingSignal } }

    func add(_ result: ImportResult) { state.withLock { $0.results.append(result) } }

    func has(_ result: ImportResult) -> Bool {
        state.withLock { $0.results.contains { $0.uid == result.uid && $0.recurrenceID == result.recurrenceID } }
    }

    /// What a signal arriving now does.
    enum SignalEffect { case endNow, afterSending, endEditor, ignored }

    /// At the prompt the process ends now; during a create the signal waits for it to be complete; in the
    /// editor the editor is ended, and graph-ics ends once it has exited.
    func signalArrived(_ signal: Int32) -> SignalEffect {
        state.withLock { state in
            switch state.phase {
            case .asking: return .endNow
            case .sending:
                state.pendingSignal = signal
                return .afterSending
            case .editing:
                guard state.pendingSignal == nil else { return .ignored }
                state.pendingSignal = signal
                return .endEditor
            }
        }
    }

    /// The editor started (its process id) or ended (nil); a signal that came before it started ends it now.
    func editorRunning(_ pid: pid_t?) {
        state.withLock { state in
            state.editor = pid
            if let pid, state.pendingSignal != nil { kill(pid, SIGTERM) }
        }
    }

    /// Sends `signal` to the editor, if it still runs.
    func signalEditor(_ signal: Int32) {
        state.withLock { state in
            if let pid = state.editor { kill(pid, signal) }
        }
    }

    func sending<T>(_ body: () -> T) -> T {
        state.withLock { $0.phase = .sending }
        defer { state.withLock { $0.phase = .asking } }
        return body()
    }

    func editing<T>(_ body: () throws(FormError) -> T) throws(FormError) -> T {
        state.withLock { $0.phase = .editing }
        defer { state.withLock { $0.phase = .asking } }
        return try body()
    }
}
