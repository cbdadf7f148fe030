import ICalBridge
import Testing

@testable import GraphICSCommands

/// `--detail` and the event filters read into an ``EventSelection``, with export's and feed's defaults.
@Suite struct SelectionOptionsTests {
    static func selection(
        _ arguments: [String], _ defaults: SelectionOptions.Defaults
    ) throws(UsageError) -> EventSelection {
        let declarations = SelectionOptions.Declarations(defaults: defaults)
        return try SelectionOptions(Parsed(arguments, declarations: declarations), defaults: defaults).selection
    }

    @Test("export: full with private events shown by default; private events hidden at limited and busy")
    func exportDefaults() throws {
        #expect(try Self.selection([], .export) == .everything)
        #expect(
            try Self.selection(["--detail", "limited"], .export) == EventSelection(detail: .limited, showPrivate: false)
        )
        #expect(
            try Self.selection(["--detail=busy", "--show-private"], .export)
                == EventSelection(detail: .busy, showPrivate: true))
    }

    @Test("feed: limited with private events as busy blocks by default")
    func feedDefaults() throws {
        #expect(try Self.selection([], .feed) == EventSelection(detail: .limited, showPrivate: false))
        #expect(try Self.selection(["--detail", "full"], .feed) == EventSelection(detail: .full, showPrivate: false))
        #expect(try Self.selection(["--show-private"], .feed) == EventSelection(detail: .limited, showPrivate: true))
    }

    @Test("the filters, --category repeated in the order given")
    func filters() throws {
        let selection = try Self.selection(
            ["--exclude-declined", "--category", "Team", "--exclude-cancelled", "--category=Travel"], .export)
        #expect(
            selection
                == EventSelection(
                    detail: .full, showPrivate: true, excludeDeclined: true, excludeCancelled: true,
                    categories: ["Team", "Travel"]))
    }

    @Test("a level that is none of full, limited, busy, an empty category or a second --detail is a usage error")
    func refused() {
        #expect(throws: UsageError.self) { try Self.selection(["--detail", "everything"], .export) }
        #expect(throws: UsageError.self) { try Self.selection(["--category", ""], .feed) }
        #expect(throws: UsageError.self) { try Self.selection(["--detail", "busy", "--detail", "full"], .feed) }
    }

    @Test("the help names each command's default level")
    func helpDefaults() {
        #expect(SelectionOptions.Declarations(defaults: .export).detail.spec.defaultValue == "full")
        #expect(SelectionOptions.Declarations(defaults: .feed).detail.spec.defaultValue == "limited")
    }
}
