import Foundation
import Testing

@testable import GraphICSCommands

/// The pages people read (README.md and docs/*.md) against the program and the package: every command and
/// every visible option is on a page, every `graph-ics …` command line in a page is one graph-ics reads, and
/// the one table of modules (docs/ARCHITECTURE.md) names exactly the package's targets.
@Suite struct DocsTests {
    /// README.md and every page under docs/, by their paths relative to the package.
    static let pages: [(path: String, text: String)] = {
        let docs = packageRoot.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        let paths = ["README.md"] + names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return paths.compactMap { path in
            (try? String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)).map { (path, $0) }
        }
    }()

    @Test("the pages are there: the README and the topics it links to")
    func pagesExist() {
        let paths = Self.pages.map(\.path)
        for page in [
            "README.md", "docs/sync.md", "docs/feeds.md", "docs/import.md", "docs/ics-output.md",
            "docs/time-zones.md", "docs/configuration.md", "docs/DEVELOPING.md", "docs/ARCHITECTURE.md",
        ] {
            #expect(paths.contains(page), "\(page) is missing")
        }
    }

    @Test("every command is on a page as 'graph-ics COMMAND', and every option it shows in its help too")
    func everyCommandAndOptionIsDocumented() {
        #expect(Self.undocumented(Program.info.commands, in: Self.pages.map(\.text)).isEmpty)
    }

    @Test("an option no page names is found (the check can fail)")
    func undocumentedOptionIsFound() throws {
        var sync = SyncCommand.info
        sync.options.append(OptionSpec(long: "--frobnicate-calendars", help: "Not an option of graph-ics."))
        let missing = Self.undocumented([sync], in: Self.pages.map(\.text))
        #expect(missing == ["sync --frobnicate-calendars"])
        var unknown = SyncCommand.info
        unknown.name = "frobnicate"
        #expect(Self.undocumented([unknown], in: Self.pages.map(\.text)).first == "command frobnicate")
    }

    /// What the pages leave out: `command NAME` for a command no page shows as `graph-ics NAME`, and
    /// `NAME --option` for an option none of its names (long or short) appears for on a page that names the
    /// command (`graph-ics NAME` or `` `NAME` ``).
    static func undocumented(_ commands: [CommandInfo], in pages: [String]) -> [String] {
        var missing: [String] = []
        for command in commands {
            guard pages.contains(where: { $0.contains("graph-ics \(command.name)") }) else {
                missing.append("command \(command.name)")
                continue
            }
            let about = pages.filter { $0.contains("graph-ics \(command.name)") || $0.contains("`\(command.name)`") }
            for spec in command.options where spec.long != "--help" {
                let named = spec.names.contains { name in about.contains { mentions($0, option: name) } }
                if !named { missing.append("\(command.name) \(spec.long)") }
            }
        }
        return missing
    }

    /// Whether `text` holds `option` as a word of its own: `--tz` counts in "`--tz ZONE`", not in `--tzdata`.
    static func mentions(_ text: String, option: String) -> Bool {
        var rest = text[...]
        while let range = rest.range(of: option) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            let isNamePart = { (c: Character?) in
                c.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } ?? false
            }
            if !isNamePart(before) && !isNamePart(after) { return true }
            rest = text[range.upperBound...]
        }
        return false
    }

    @Test("every graph-ics command line in a page's sh blocks is one graph-ics reads")
    func everyCommandLineParses() {
        let lines = Self.pages.flatMap { page in Self.commandLines(in: page.text).map { (page.path, $0) } }
        #expect(lines.count > 80, "only \(lines.count) command lines found")
        for (path, words) in lines {
            if case .usageError(let report) = Program.invocation(words) {
                Issue.record("\(path): graph-ics \(words.joined(separator: " ")): \(report.message)")
            }
        }
    }

    @Test("a command line graph-ics does not read is found (the check can fail)")
    func badCommandLineIsFound() {
        let page = "```sh\ngraph-ics export --wek next -o x.ics   # a typo\ngraph-ics agenda\n```\n"
        let lines = Self.commandLines(in: page)
        #expect(lines == [["export", "--wek", "next", "-o", "x.ics"], ["agenda"]])
        guard case .usageError = Program.invocation(lines[0]) else {
            Issue.record("--wek was read")
            return
        }
        if case .usageError(let report) = Program.invocation(lines[1]) { Issue.record("\(report.message)") }
    }

    /// The arguments after `graph-ics` of each command line in the page's ```sh blocks (and of each
    /// `$ graph-ics …` line in its other blocks), read as the shell reads words: quotes, backslashes, a
    /// line continued with `\`, `#` comments; a word ends at `|`, `;`, `&`, `)`, `>` or `<`, and the
    /// command line with it.
    static func commandLines(in page: String) -> [[String]] {
        var result: [[String]] = []
        var block: String?
        var pending = ""
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                block = block == nil ? String(line.dropFirst(3)) : nil
                continue
            }
            guard let kind = block else { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let full = pending + line
            pending = ""
            if kind == "sh" {
                result += commands(inShellLine: full)
            } else if full.hasPrefix("$ graph-ics ") {
                result += commands(inShellLine: String(full.dropFirst(2)))
            }
        }
        return result
    }

    /// The graph-ics invocations of one shell line: each command that starts with the word `graph-ics`.
    static func commands(inShellLine line: String) -> [[String]] {
        var commands: [[String]] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        func endWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        func endCommand() {
            endWord()
            if let start = words.firstIndex(of: "graph-ics"), words[..<start].allSatisfy({ $0.contains("=") }) {
                commands.append(Array(words[(start + 1)...]))
            }
            words = []
        }
        var characters = Array(line)[...]
        while let c = characters.popFirst() {
            if escaped {
                word.append(c)
                escaped = false
            } else if let q = quote {
                if c == q {
                    quote = nil
                } else if c == "\\" && q == "\"" {
                    escaped = true
                } else {
                    word.append(c)
                }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == "\\" {
                escaped = true
                inWord = true
            } else if c == "#" && !inWord {
                break
            } else if c == " " || c == "\t" {
                endWord()
            } else if "|;&)><".contains(c) {
                // `2>&1`: the descriptor is the redirection's, not an argument.
                if (c == ">" || c == "<") && inWord && word.allSatisfy(\.isNumber) { word = ""; inWord = false }
                endCommand()
                // The rest of a redirection's or a pipe's line is another command, or the redirection's target.
                if c == ">" || c == "<" {
                    while let next = characters.first, next != "|" && next != ";" && next != "&" {
                        characters = characters.dropFirst()
                    }
                }
            } else if c == "$" && characters.first == "(" {
                endCommand()
                characters = characters.dropFirst()
            } else {
                word.append(c)
                inWord = true
            }
        }
        endCommand()
        return commands
    }

    @Test("the module table of docs/ARCHITECTURE.md names exactly the targets of Package.swift")
    func moduleTableMatchesPackage() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let architecture = try #require(Self.pages.first { $0.path == "docs/ARCHITECTURE.md" }?.text)
        let problems = Self.moduleTableProblems(table: architecture, manifest: manifest)
        #expect(problems.isEmpty, "\(problems)")
        // The check can fail: a target the table leaves out, and a row naming no target.
        let withNewTarget = manifest + "\n.target(\n    name: \"GraphICSFrobnicate\",\n    dependencies: []\n),\n"
        #expect(
            Self.moduleTableProblems(table: architecture, manifest: withNewTarget)
                == ["the table leaves out GraphICSFrobnicate"])
        let withOldRow = architecture.replacingOccurrences(
            of: "| `ICalBridge` |", with: "| `ICalBridge`, `OldModule` |")
        #expect(
            Self.moduleTableProblems(table: withOldRow, manifest: manifest) == [
                "the table names OldModule, not a target"
            ])
        // The other pages keep no second module table.
        for page in Self.pages where page.path != "docs/ARCHITECTURE.md" {
            #expect(!page.text.contains("\n| module |") && !page.text.contains("\n| target |"), "\(page.path)")
        }
    }

    /// What the first table under `## Modules` in `table` gets wrong about the targets and products the
    /// manifest declares: each target (`name:` of `.target`, `.systemLibrary`, `.executableTarget`,
    /// `.testTarget`) must be named in a row's first cell, and each name in backticks there must be a target
    /// or a product (`graph-standin`).
    static func moduleTableProblems(table: String, manifest: String) -> [String] {
        let declaration = /\.(?:target|systemLibrary|executableTarget|testTarget)\(\s*name:\s*"([A-Za-z0-9]+)"/
        let targets = manifest.matches(of: declaration).map { String($0.output.1) }
        let products = manifest.matches(of: /\.(?:executable|library)\(\s*name:\s*"([^"]+)"/).map {
            String($0.output.1)
        }
        guard let start = table.range(of: "\n## Modules\n") else { return ["no '## Modules' section"] }
        let rows = table[start.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix {
            $0.hasPrefix("|")
        }
        let named = rows.dropFirst(2).flatMap { row in
            row.split(separator: "|").first.map { cell in cell.matches(of: /`([^`]+)`/).map { String($0.output.1) } }
                ?? []
        }
        var problems = targets.filter { !named.contains($0) }.map { "the table leaves out \($0)" }
        problems += named.filter { !targets.contains($0) && !products.contains($0) }.map {
            "the table names \($0), not a target"
        }
        return problems
    }
}
