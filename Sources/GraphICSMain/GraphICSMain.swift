internal import CGlibc
import Foundation
import GraphICSCommands

/// `graph-ics`: sets up the process, then hands the command line to ``Program``.
@main
enum GraphICSMain {
    static func main() {
        // A large conversion frees millions of small blocks (libical's trees) on all cores. With glibc's fast
        // bins, those blocks wait to be merged by one thread when the next large block is freed: tens of
        // milliseconds on one core for a 10,000-event file. Without them each free merges at once, on
        // the thread that frees it.
        _ = mallopt(M_MXFAST, 0)
        // A reader that goes away (`graph-ics export -o - | head -n 5`) makes writes fail with EPIPE, and
        // graph-ics then removes its temporary files and exits 141, silently, as a shell shows for tools
        // SIGPIPE ends (Interruption.endForBrokenPipe). Ignoring it also overrides an inherited handler.
        signal(SIGPIPE, SIG_IGN)
        let terminal = Terminal()
        let signals = Interruption.install(terminal)
        let status = withExtendedLifetime(signals) {
            Program.run(Array(CommandLine.arguments.dropFirst()), terminal: terminal)
        }
        exit(status.rawValue)
    }
}
