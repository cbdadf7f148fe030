/// The program as its help page, completion scripts and manual page show it.
struct ProgramInfo: Sendable, Equatable {
    /// `graph-ics`.
    var name: String
    var version: String
    /// One line: what the program is.
    var summary: String
    /// The commands, in the order the help lists them.
    var commands: [CommandInfo]
    /// The options before a command (`--help`, `--version`).
    var options: [OptionSpec]
    /// Paragraphs after the options (environment, exit statuses).
    var sections: [Section]

    /// A paragraph with a title: `Environment: …` in the help, a section of the manual page.
    struct Section: Sendable, Equatable {
        var title: String
        var text: String
    }

    /// `Usage: graph-ics <command> [options]`.
    var usage: String { "Usage: \(name) <command> [options]" }
}

/// Help pages in the layout of swift-argument-parser's: usage, what the command does, `Options:` with one
/// entry per declared option (label in a column, help wrapped beside it), then examples and exit statuses.
enum HelpPage {
    /// The longest line an options entry takes.
    static let width = 92
    /// Where an option's help starts; a longer label puts the help on the next line.
    static let helpColumn = 22

    /// The help of one command.
    static func render(_ command: CommandInfo) -> String {
        var text = command.usageLines.joined(separator: "\n") + "\n\n"
        text += paragraph(command.discussion) + "\nOptions:\n" + options(command.options)
        if !command.epilogue.isEmpty { text += "\n" + paragraph(command.epilogue) }
        return text
    }

    /// The help of the program: its commands and its own options.
    static func render(_ program: ProgramInfo) -> String {
        var text = "\(program.name) \(program.version): \(program.summary)\n\n\(program.usage)\n\nCommands:\n"
        let column = (program.commands.map(\.name.count).max() ?? 0) + 2
        for command in program.commands {
            text += "  " + command.name.padding(toLength: column, withPad: " ", startingAt: 0) + command.abstract + "\n"
        }
        text += "\nOptions:\n" + options(program.options)
        for section in program.sections {
            text += "\n" + paragraph(section.title + ": " + section.text)
        }
        return text
    }

    /// One entry per option: `  -o, --output FILE   Write to FILE …`.
    static func options(_ specs: [OptionSpec]) -> String {
        var text = ""
        let indent = String(repeating: " ", count: helpColumn)
        for spec in specs {
            let label = "  " + spec.label
            var lines = wrap(fullHelp(spec), width: width - helpColumn)
            if label.count + 2 > helpColumn {
                text += label + "\n"
            } else if let first = lines.first {
                text += label.padding(toLength: helpColumn, withPad: " ", startingAt: 0) + first + "\n"
                lines.removeFirst()
            }
            for line in lines { text += indent + line + "\n" }
        }
        return text
    }

    /// The option's help, with its default when it has one.
    static func fullHelp(_ spec: OptionSpec) -> String {
        spec.help + (spec.defaultValue.map { " Default: \($0)." } ?? "")
    }

    /// `text` broken into lines of at most `width` characters at spaces; a line break in `text` always
    /// starts a new line. A word longer than `width` stands on a line of its own.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for part in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in part.split(separator: " ") {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// `text` ending with exactly one line break.
    private static func paragraph(_ text: String) -> String {
        var text = Substring(text)
        while text.last == "\n" { text = text.dropLast() }
        return text + "\n"
    }
}
