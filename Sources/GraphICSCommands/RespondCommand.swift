import Foundation
import GraphICS
import ICalBridge

/// `graph-ics respond`: answers a meeting invitation (Graph's accept, tentativelyAccept and decline).
struct RespondCommand: Command {
    static let name = "respond"
    static let abstract = "Accept, tentatively accept or decline a meeting invitation."
    static let synopsis = ["EVENT accept|tentative|decline [--comment TEXT] [--no-mail]", "[--tz ZONE] [--user UPN]"]
    static let discussion = """
        Answers the invitation to EVENT (an id as 'agenda --json' prints it). The id of a series
        answers every occurrence; the id of one occurrence answers that one.

        Graph mails your answer, with --comment, to the meeting's organizer: graph-ics says so on
        standard error before it sends. With --no-mail the answer is only recorded in your calendar
        and the organizer is not told. A meeting you organise has no invitation to answer.
        """
    static let epilogue = """
        Examples:
          graph-ics respond AAMkAGI2TG93AAA= accept
          graph-ics respond AAMkAGI2TG93AAA= decline --comment 'On holiday that week'
          graph-ics respond AAMkAGI2TG93AAA= tentative --no-mail

        Exit status: 0 answered, 64 usage, 65 Graph refused the answer (or you organise the meeting),
        66 no such event, 69 Graph unavailable, 77 not signed in or no permission.
        """
    static let operands: ValueCompletion? = .choices(EventResponse.allCases.map(\.rawValue))

    struct Options: OptionGroup {
        let comment = Option("--comment", value: "TEXT", help: "Text sent with the answer.")
        let noMail = Flag("--no-mail", help: "Record the answer without mailing the organizer (sendResponse false).")
        let zone = Option.zone(help: "Show the meeting's time in this zone instead of the mailbox's.")
        let connection = ConnectionOptions.Declarations()
    }

    var id: String
    var answer: EventResponse
    var comment: String?
    var noMail: Bool
    var zone: ResolvedZone?
    var connection: ConnectionOptions

    init(_ parsed: Parsed<Options>) throws(UsageError) {
        let choices = EventResponse.allCases.map(\.rawValue).joined(separator: ", ")
        guard parsed.positionals.count == 2 else {
            throw UsageError("give the event's id and the answer (\(choices))")
        }
        id = parsed.positionals[0]
        guard let answer = EventResponse(rawValue: parsed.positionals[1].lowercased()) else {
            throw UsageError("the answer must be one of \(choices), not '\(parsed.positionals[1])'")
        }
        self.answer = answer
        comment = try parsed[\.comment]
        noMail = parsed[\.noMail]
        zone = try parsed[\.zone]
        connection = try ConnectionOptions(parsed.group(\.connection))
    }

    func run(_ terminal: Terminal) throws -> ExitStatus {
        let session = try Session.open(connection, need: .write, terminal: terminal)
        let zone = try session.mailboxZone(override: self.zone, terminal: terminal)
        let event = try EventActions.standing(of: id, session.client, nothing: "answered")
        let label = EventActions.label(event, zone: zone, clock: EventWhen(session.config))
        guard event.isOrganizer != true else {
            throw CommandFailure(.badInput, "you organise \(label): there is no invitation to answer")
        }
        let organizer = event.organizer ?? "the organizer"
        if noMail {
            terminal.note("recording your answer to \(label) without mailing \(organizer)")
        } else {
            terminal.note("Graph will mail your answer to \(organizer) (--no-mail answers without telling them)")
        }
        try session.client.respond(toEvent: id, with: answer, comment: comment, sendResponse: !noMail)
        terminal.note("\(Self.past(answer)) \(label)")
        return .ok
    }

    /// `accepted`, `tentatively accepted`, `declined`.
    static func past(_ answer: EventResponse) -> String {
        switch answer {
        case .accept: "accepted"
        case .tentative: "tentatively accepted"
        case .decline: "declined"
        }
    }
}
