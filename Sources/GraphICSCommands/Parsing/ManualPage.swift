/// The manual pages (roff, `man 7 man` macros), made from the same declarations as the help, one per command
/// as git has them: `graph-ics(1)` with the program's options, the list of commands and the program's own
/// sections (environment, files, exit statuses), and `graph-ics-COMMAND(1)` with the command's usage, text,
/// options, examples and exit statuses, then the same environment and files. No date, so that a page
/// changes only when the declarations do.
enum ManualPage {
    /// `graph-ics(1)`: what `graph-ics help --man` prints.
    static func render(_ program: ProgramInfo) -> String {
        var lines = header(name: program.name, summary: program.summary, madeBy: "help --man", program: program)
        lines += [
            ".SH SYNOPSIS",
            ".B \(escape(program.name))",
            ".I command",
            ".RI [ options ]",
            ".SH DESCRIPTION",
            "Each command has its own manual page, \\fB\(escape(program.name))\\-\\fIcommand\\fR(1), which holds "
                + "what \\fB\(escape(program.name)) \\fIcommand\\fB \\-\\-help\\fR prints.",
            ".SH OPTIONS",
        ]
        lines += program.options.flatMap(option)
        lines.append(".SH COMMANDS")
        for command in program.commands {
            lines += [".TP", "\\fB\(escape(pageName(command, program: program)))\\fR(1)", escape(command.abstract)]
        }
        for section in program.sections {
            lines.append(".SH " + escape(section.title.uppercased()))
            lines += text(section.text)
        }
        lines.append(".SH SEE ALSO")
        lines.append(
            program.commands.map { "\\fB\(escape(pageName($0, program: program)))\\fR(1)" }.joined(separator: ",\n"))
        return lines.joined(separator: "\n") + "\n"
    }

    /// `graph-ics-COMMAND(1)`: what `graph-ics help --man COMMAND` prints; the command's `--help` as a manual
    /// page, its epilogue's paragraphs as EXAMPLES, EXIT STATUS or NOTES, then the program's sections (its exit
    /// statuses only when the command names none of its own).
    static func render(_ command: CommandInfo, program: ProgramInfo) -> String {
        let name = pageName(command, program: program)
        var lines = header(
            name: name, summary: command.abstract, madeBy: "help --man \(command.name)", program: program)
        let prefix = "\(program.name) \(command.name) "
        let indent = String(repeating: " ", count: prefix.count)
        lines += [".SH SYNOPSIS", ".nf"]
        for (index, line) in command.synopsis.enumerated() {
            lines.append(index == 0 ? "\\fB\(escape(prefix))\\fR\(escape(line))" : escape(indent + line))
        }
        lines += [".fi", ".SH DESCRIPTION"]
        lines += text(command.discussion)
        lines.append(".SH OPTIONS")
        lines += command.options.flatMap(option)
        var ownExitStatus = false
        for paragraph in paragraphs(command.epilogue) {
            let heading = ["Examples:", "Exit status:"].first { paragraph.hasPrefix($0) }
            ownExitStatus = ownExitStatus || heading == "Exit status:"
            lines.append(".SH " + (heading.map { String($0.dropLast()).uppercased() } ?? "NOTES"))
            var rest = Substring(paragraph).dropFirst(heading?.count ?? 0).drop { $0 == " " }
            if rest.first == "\n" { rest = rest.dropFirst() }
            lines += text(String(rest))
        }
        for section in program.sections where !(ownExitStatus && section.title == "Exit status") {
            lines.append(".SH " + escape(section.title.uppercased()))
            lines += text(section.text)
        }
        lines += [".SH SEE ALSO", "\\fB\(escape(program.name))\\fR(1)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `graph-ics-sync`: the name of a command's page, as git names its pages.
    static func pageName(_ command: CommandInfo, program: ProgramInfo) -> String {
        "\(program.name)-\(command.name)"
    }

    /// The comment, `.TH` and NAME of a page.
    private static func header(name: String, summary: String, madeBy: String, program: ProgramInfo) -> [String] {
        [
            ".\\\" \(name)(1), made by '\(program.name) \(madeBy)' from its option declarations; do not edit.",
            ".TH \(escape(name.uppercased())) 1 \"\" \"\(escape("\(program.name) \(program.version)"))\" \"User Commands\"",
            ".nh",
            ".SH NAME",
            "\(escape(name)) \\- \(escape(summary))",
        ]
    }

    /// `text` cut at blank lines, each paragraph without its line breaks at the ends.
    private static func paragraphs(_ text: String) -> [String] {
        text.split(separator: "\n\n").map(String.init).filter { !$0.allSatisfy(\.isNewline) }
    }

    /// `.TP`, the names in bold and the value name in italics, then the help (line breaks kept).
    private static func option(_ spec: OptionSpec) -> [String] {
        let names = spec.names.map { "\\fB\(escape($0))\\fR" }.joined(separator: ", ")
        let value = spec.valueName.map { " \\fI\(escape($0))\\fR" } ?? ""
        let help = HelpPage.fullHelp(spec).split(separator: "\n").map { escape(String($0)) }
        return [".TP", names + value] + help.joined(separator: "\n.br\n").split(separator: "\n").map(String.init)
    }

    /// Help text as roff: a blank line starts a paragraph, indented lines (lists, examples) are kept as they
    /// are, the others are filled.
    static func text(_ text: String) -> [String] {
        var lines: [String] = []
        var unfilled = false
        var lastWasBreak = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indented = line.first == " "
            if line.isEmpty {
                if unfilled { lines.append(".fi") }
                unfilled = false
                if !lastWasBreak { lines.append(".PP") }
                lastWasBreak = true
                continue
            }
            if indented != unfilled { lines.append(indented ? ".nf" : ".fi") }
            unfilled = indented
            lines.append(escape(String(line)))
            lastWasBreak = false
        }
        if unfilled { lines.append(".fi") }
        while lines.last == ".PP" { lines.removeLast() }
        return lines
    }

    /// `text` safe in roff: backslashes and dashes escaped, characters beyond ASCII as `\[uXXXX]`, a
    /// leading `.` or `'` made literal.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            case _ where scalar.value > 0x7E:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
