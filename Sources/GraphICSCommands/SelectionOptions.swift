import ICalBridge

/// `--detail`, `--show-private`, `--exclude-declined`, `--exclude-cancelled` and `--category`: which events
/// a command writes and how much of each, read into an ``EventSelection``. Declared here once for `export`
/// and `feed add`, which differ only in their defaults.
struct SelectionOptions {
    /// The defaults of a command.
    enum Defaults: Sendable {
        /// `export`: full detail, private events shown (as before these options); at `limited` or `busy`
        /// private events are busy blocks unless `--show-private`.
        case export
        /// `feed add`: limited detail, private events as busy blocks unless `--show-private`.
        case feed

        var detail: ExportDetail { self == .export ? .full : .limited }
    }

    var selection: EventSelection

    struct Declarations: OptionGroup {
        let detail: Option<ExportDetail>
        let showPrivate = Flag(
            "--show-private",
            help: "Show private and confidential events at the chosen detail, not as busy blocks.")
        let excludeDeclined = Flag("--exclude-declined", help: "Leave out events you declined.")
        let excludeCancelled = Flag("--exclude-cancelled", help: "Leave out cancelled events.")
        let categories = Option(
            "--category", value: "C", help: "Only events with category C (repeatable; any of them, case-insensitive)."
        )
        .refusingEmpty("--category needs a category name").repeatable()

        init() { self.init(defaults: .export) }

        /// The options as a command with `defaults` shows them: the help names its default detail.
        init(defaults: Defaults) {
            let plain = Option<ExportDetail>(
                "--detail", value: "LEVEL",
                help: "full: everything.\n"
                    + "limited: times, subject, location and show-as; no body, attendees, organizer, meeting "
                    + "link, categories, reminder or Graph ids.\n"
                    + "busy: times and show-as only, titled Busy, Tentative, Out of office or Working "
                    + "elsewhere; free time left out."
                    + (defaults == .export ? " Private events are busy blocks at limited and busy." : ""))
            var spec = plain.spec
            spec.defaultValue = defaults.detail.rawValue
            detail = Option(spec: spec, read: plain.read)
        }
    }

    init(_ parsed: Parsed<Declarations>, defaults: Defaults) throws(UsageError) {
        let detail = try parsed[\.detail] ?? defaults.detail
        selection = EventSelection(
            detail: detail,
            showPrivate: parsed[\.showPrivate] || (defaults == .export && detail == .full),
            excludeDeclined: parsed[\.excludeDeclined], excludeCancelled: parsed[\.excludeCancelled],
            categories: try parsed[\.categories])
    }
}
