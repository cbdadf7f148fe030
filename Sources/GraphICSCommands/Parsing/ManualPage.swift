/// The manual page (roff, `man 7 man` macros) made from the same declarations as the help: the program's
/// options, then a section per command with its usage, text and options, then the program's own sections
/// (environment, exit statuses). No date, so that it changes only when the declarations do.
enum ManualPage {
    static func render(_ program: ProgramInfo) -> String {
        let title = program.name.uppercased()
        var lines = [
            ".\\\" \(program.name)(1), made by '\(program.name) help --man' from its option declarations; do not edit.",
            ".TH \(title) 1 \"\" \"\(escape("\(program.name) \(program.version)"))\" \"User Commands\"",
            ".nh",
            ".SH NAME",
            "\(escape(program.name)) \\- \(escape(program.summary))",
            ".SH SYNOPSIS",
            ".B \(escape(program.name))",
            ".I command",
            ".RI [ options ]",
            ".SH OPTIONS",
        ]
        lines += program.options.flatMap(option)
        lines.append(".SH COMMANDS")
        for command in program.commands {
            lines += section(command, program: program.name)
        }
        for section in program.sections {
            lines.append(".SH " + escape(section.title.uppercased()))
            lines += text(section.text)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One command: `.SS`, its usage unfilled, its text, its options as a tagged list, its epilogue.
    private static func section(_ command: CommandInfo, program: String) -> [String] {
        let prefix = "\(program) \(command.name) "
        let indent = String(repeating: " ", count: prefix.count)
        var lines = [".SS \(escape(program)) \(escape(command.name))", escape(command.abstract), ".PP", ".nf"]
        for (index, line) in command.synopsis.enumerated() {
            lines.append(index == 0 ? "\\fB\(escape(prefix))\\fR\(escape(line))" : escape(indent + line))
        }
        lines += [".fi", ".PP"]
        lines += text(command.discussion)
        lines += [".PP", "Options:"]
        lines += command.options.flatMap(option)
        if !command.epilogue.isEmpty {
            lines.append(".PP")
            lines += text(command.epilogue)
        }
        return lines
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
