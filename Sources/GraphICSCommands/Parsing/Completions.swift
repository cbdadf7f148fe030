/// The shells `graph-ics completions` writes scripts for.
enum Shell: String, CaseIterable, Sendable {
    case bash
    case zsh
    case fish
}

/// Completion scripts made from the commands' declarations: every command, every visible option with its
/// short alias, the values it takes (a file, a fixed set of words, or free text) and the command's operands.
enum Completions {
    static func script(for shell: Shell, program: ProgramInfo) -> String {
        let lines: [String]
        switch shell {
        case .bash: lines = bash(program)
        case .zsh: lines = zsh(program)
        case .fish: lines = fish(program)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The first line of every script.
    static func banner(_ shell: Shell, _ program: ProgramInfo) -> String {
        "# \(shell.rawValue) completion for \(program.name), made by '\(program.name) completions \(shell.rawValue)'"
            + " from its option declarations."
    }

    /// A shell function name for `name` (`graph-ics` → `_graph_ics`).
    static func function(_ name: String) -> String {
        "_" + name.replacingOccurrences(of: "-", with: "_")
    }

    // MARK: bash

    static func bash(_ program: ProgramInfo) -> [String] {
        let main = function(program.name)
        var lines = [
            banner(.bash, program),
            "\(main)_words() { mapfile -t COMPREPLY < <(compgen -W \"$1\" -- \"$cur\"); }",
            "\(main)_files() { compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\"); }",
            "\(main)() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" command=\"\" i",
            "    COMPREPLY=()",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        if [[ ${COMP_WORDS[i]} != -* ]]; then command=${COMP_WORDS[i]}; break; fi",
            "    done",
            "    case \"$command\" in",
            "    \"\")",
            "        \(main)_words \"\((program.commands.map(\.name) + program.options.flatMap(\.names)).joined(separator: " "))\"",
            "        ;;",
        ]
        for command in program.commands {
            lines.append("    \(command.name))")
            let valued = command.options.filter(\.takesValue)
            if !valued.isEmpty {
                lines.append("        case \"$prev\" in")
                for spec in valued {
                    lines.append(
                        "        \(spec.names.joined(separator: "|"))) \(bashValue(spec.completion, main)); return ;;")
                }
                lines.append("        esac")
            }
            let options = "\(main)_words \"\(command.options.flatMap(\.names).joined(separator: " "))\""
            if let operands = command.operands {
                lines.append("        if [[ $cur == -* ]]; then \(options); else \(bashValue(operands, main)); fi")
            } else {
                lines.append("        \(options)")
            }
            lines.append("        ;;")
        }
        lines += ["    esac", "}", "complete -F \(main) \(program.name)"]
        return lines
    }

    private static func bashValue(_ completion: ValueCompletion, _ main: String) -> String {
        switch completion {
        case .anything: return ":"
        case .file: return "\(main)_files"
        case .choices(let words): return "\(main)_words \"\(words.joined(separator: " "))\""
        }
    }

    // MARK: zsh

    static func zsh(_ program: ProgramInfo) -> [String] {
        let main = function(program.name)
        var lines = [
            "#compdef \(program.name)",
            banner(.zsh, program),
            "",
            "\(main)() {",
            "    local curcontext=\"$curcontext\" state line",
            "    _arguments -C \\",
        ]
        lines += program.options.flatMap { zshOption($0) }.map { "        \($0) \\" }
        lines += [
            "        '1: :->command' \\",
            "        '*:: :->argument' && return",
            "    case $state in",
            "    command)",
            "        local -a commands",
            "        commands=(",
        ]
        lines += program.commands.map { "            " + zshQuoted("\($0.name):\($0.abstract)") }
        lines += [
            "        )",
            "        _describe -t commands '\(program.name) command' commands",
            "        ;;",
            "    argument)",
            "        case $line[1] in",
        ]
        lines += program.commands.map { "        \($0.name)) \(main)_\($0.name) ;;" }
        lines += ["        esac", "        ;;", "    esac", "}"]
        for command in program.commands {
            lines += ["", "\(main)_\(command.name)() {", "    _arguments \\"]
            var specs = command.options.flatMap { zshOption($0) }
            switch command.operands {
            case nil: break
            case .anything: specs.append("'*: : '")
            case .file: specs.append("'*:FILE:_files'")
            case .choices(let words): specs.append(zshQuoted("1: :(\(words.joined(separator: " ")))"))
            }
            lines += specs.enumerated().map { index, spec in
                "        " + spec + (index == specs.count - 1 ? "" : " \\")
            }
            lines.append("}")
        }
        lines += ["", "\(main) \"$@\""]
        return lines
    }

    /// The `_arguments` specs of one option: one per name, each excluding the other names.
    private static func zshOption(_ spec: OptionSpec) -> [String] {
        let description = spec.summary.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]")
        let exclusions =
            spec.long == "--help" ? "(- *)" : spec.names.count > 1 ? "(\(spec.names.joined(separator: " ")))" : ""
        var value = ""
        if let name = spec.valueName {
            let message = name.replacingOccurrences(of: ":", with: "\\:")
            switch spec.completion {
            case .anything: value = ":\(message): "
            case .file: value = ":\(message):_files"
            case .choices(let words): value = ":\(message):(\(words.joined(separator: " ")))"
            }
        }
        return spec.names.map { zshQuoted("\(exclusions)\($0)[\(description)]\(value)") }
    }

    /// `text` in single quotes for zsh.
    private static func zshQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    // MARK: fish

    static func fish(_ program: ProgramInfo) -> [String] {
        let complete = "complete -c \(program.name)"
        var lines = [banner(.fish, program), "\(complete) -f"]
        let top = "\(complete) -n __fish_use_subcommand"
        lines += program.options.map { "\(top) \(fishOption($0))" }
        lines += program.commands.map { "\(top) -a \($0.name) -d \(fishQuoted($0.abstract))" }
        for command in program.commands {
            let prefix = "\(complete) -n \(fishQuoted("__fish_seen_subcommand_from \(command.name)"))"
            lines += command.options.map { "\(prefix) \(fishOption($0))" }
            switch command.operands {
            case nil, .anything: break
            case .file: lines.append("\(prefix) -F")
            case .choices(let words): lines.append("\(prefix) -a \(fishQuoted(words.joined(separator: " ")))")
            }
        }
        return lines
    }

    /// The arguments of `complete` for one option.
    private static func fishOption(_ spec: OptionSpec) -> String {
        var parts: [String] = []
        if let short = spec.short { parts.append("-s \(short.dropFirst())") }
        parts.append("-l \(spec.long.dropFirst(2))")
        if spec.takesValue {
            switch spec.completion {
            case .anything: parts.append("-x")
            case .file: parts.append("-r -F")
            case .choices(let words): parts.append("-x -a \(fishQuoted(words.joined(separator: " ")))")
            }
        }
        parts.append("-d \(fishQuoted(spec.summary))")
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes for fish.
    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
