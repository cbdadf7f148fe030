import ICalBridge
import Testing

@testable import GraphICSCommands

/// Each option is declared once, and the parser, the help, the completions and the manual page all come
/// from that declaration.
@Suite struct DeclarationTests {
    static let commandNames = Program.commands.map { $0.name }

    static func type(_ name: String) throws -> any Command.Type {
        try #require(Program.command(named: name))
    }

    @Test("no command uses an option name twice or declares -h/--help itself", arguments: commandNames)
    func namesAreUnique(command: String) throws {
        let names = (declaredSpecs(try Self.type(command)) + [OptionSpec.help]).flatMap(\.names)
        #expect(Set(names).count == names.count, "\(command): \(names)")
        #expect(names.allSatisfy { $0.hasPrefix("--") || ($0.count == 2 && $0.hasPrefix("-")) }, "\(names)")
    }

    @Test("the parser takes every declared name, in every spelling, and nothing else", arguments: commandNames)
    func parserTakesTheDeclaredNames(command: String) throws {
        let type = try Self.type(command)
        for spec in declaredSpecs(type) {
            for name in spec.names {
                let arguments = spec.takesValue ? [name, "x"] : [name]
                #expect(usageMessage { () throws(UsageError) in try parseDeclarations(type, arguments) } == nil)
            }
            if spec.takesValue {
                #expect(
                    usageMessage { () throws(UsageError) in try parseDeclarations(type, [spec.long + "=x"]) } == nil)
                #expect(
                    usageMessage { () throws(UsageError) in try parseDeclarations(type, [spec.long]) }
                        == "\(spec.long) needs a value")
            }
        }
        let unknown = usageMessage { () throws(UsageError) in try parseDeclarations(type, ["--not-declared"]) }
        #expect(unknown == "unknown option '--not-declared'")
    }

    @Test("help, completions and the manual page show every visible declared option", arguments: commandNames)
    func everyOutputShowsTheDeclarations(command: String) throws {
        let type = try Self.type(command)
        let info = type.info
        let help = HelpPage.render(info)
        let bash = Self.block(of: Completions.bash(Program.info), from: "    \(command))", to: "        ;;")
        let zsh = Self.block(of: Completions.zsh(Program.info), from: "_graph_ics_\(command)() {", to: "}")
        let fish = Completions.fish(Program.info).filter { $0.contains("'__fish_seen_subcommand_from \(command)'") }
        let manual = ManualPage.render(info, program: Program.info).split(separator: "\n").map(String.init)
        for spec in declaredSpecs(type) {
            #expect(help.contains("\n  \(spec.label)") != spec.isHidden, "help of \(command): \(spec.label)")
            for name in spec.names {
                #expect(bash.contains { $0.contains(" \(name) ") || $0.contains("\"\(name) ") } != spec.isHidden)
                #expect(zsh.contains { $0.contains("\(name)[") } != spec.isHidden, "zsh \(command) \(name)")
                #expect(manual.contains { $0.contains("\\fB\(ManualPage.escape(name))\\fR") } != spec.isHidden)
            }
            let fishName = spec.short.map { "-s \($0.dropFirst()) -l " } ?? "-l "
            #expect(fish.contains { $0.contains(fishName + spec.long.dropFirst(2) + " ") } != spec.isHidden)
        }
    }

    @Test("an option hidden from the help is left out of the completions too")
    func hiddenOptions() throws {
        let login = LoginCommand.info
        #expect(!login.options.contains { $0.long == "--user" })
        #expect(declaredSpecs(LoginCommand.self).contains { $0.long == "--user" && $0.isHidden })
        let message = usageMessage { () throws(UsageError) in _ = try LoginCommand.parse(["--user", "a@b.example"]) }
        #expect(message == "--user is for app-only access with a client secret; login signs in a person")
    }

    @Test("a synopsis names only options its command declares", arguments: commandNames)
    func synopsisNamesDeclaredOptions(command: String) throws {
        let info = try Self.type(command).info
        let declared = Set(info.options.flatMap(\.names))
        for line in info.synopsis {
            for word in line.split(whereSeparator: { " []|'".contains($0) }) where word.hasPrefix("-") && word != "-" {
                #expect(declared.contains(String(word)), "\(command)'s synopsis names \(word)")
            }
        }
    }

    @Test("an option's choices and its default are in its help")
    func choicesAndDefaultsAreDocumented() {
        for command in Program.info.commands {
            for spec in command.options {
                let help = HelpPage.fullHelp(spec)
                if case .choices(let words) = spec.completion {
                    for word in words { #expect(help.contains(word), "\(command.name) \(spec.long): \(word)") }
                }
                if let value = spec.defaultValue { #expect(help.hasSuffix("Default: \(value).")) }
            }
        }
        let recurrence = ExportCommand.info.options.first { $0.long == "--recurrence" }
        #expect(recurrence?.completion == .choices(["instances", "series"]))
        #expect(recurrence?.defaultValue == "instances")
    }

    @Test("values are read through their declarations, defaults included")
    func valuesComeFromTheDeclarations() throws {
        let export = try ExportCommand.parse([
            "--recurrence=series", "-o", "week.ics", "--tz", "Europe/Berlin", "--user", "ann@contoso.example", "-v",
            "--week", "2026-W49",
        ])
        #expect(export.recurrence == .series)
        #expect(export.output == "week.ics")
        #expect(export.zone?.name == "Europe/Berlin")
        #expect(export.connection.user == "ann@contoso.example")
        #expect(export.connection.verbose)
        #expect(export.range == .week("2026-W49"))
        let plain = try ExportCommand.parse([])
        #expect(plain.recurrence == .instances && plain.output == nil && !plain.connection.verbose)
        #expect(try ImportCommand.parse(["a.ics"]).onDuplicate == .skip)
        #expect(try ImportCommand.parse(["-y", "--on-duplicate", "update", "a.ics"]).onDuplicate == .update)
        #expect(try ConvertCommand.parse(["--to", "graph-json", "x.ics"]).target == .graphJSON)
    }

    @Test("--tz is read by one declaration: every command refuses an unknown zone the same way")
    func zoneOption() {
        let arguments: [[String]] = [
            ["export"], ["import", "x.ics"], ["convert"], ["agenda"],
            ["add", "--subject", "S", "--start", "2026-12-01T10:00", "--end", "2026-12-01T11:00"],
        ]
        for command in arguments {
            guard case .usageError(let report) = Program.invocation(command + ["--tz", "Mars/Olympus"]) else {
                Issue.record("\(command) took --tz Mars/Olympus")
                continue
            }
            #expect(report.message == "--tz 'Mars/Olympus' is not a time zone (use an IANA name such as Europe/Berlin)")
        }
    }

    /// The lines from the one starting with `start` up to the next one starting with `end`.
    static func block(of lines: [String], from start: String, to end: String) -> [String] {
        guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
        let rest = lines[(first + 1)...]
        let last = rest.firstIndex { $0.hasPrefix(end) } ?? lines.endIndex
        return Array(lines[first..<last])
    }
}
