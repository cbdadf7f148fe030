import Foundation
import GraphICS

/// Where `graph-ics import` reads an input from: a file, standard input (`-`), or a URL
/// (`https://…/ticket.ics`), fetched by ``TicketDownload`` without anything of the Graph session.
enum ImportSource {
    /// The bytes of `input`, read as a file would be; a URL is fetched.
    static func read(_ input: String) throws(CommandFailure) -> Data {
        guard TicketDownload.isURL(input) else { return try InputFile.read(input) }
        do {
            return try TicketDownload().fetch(input)
        } catch {
            throw CommandFailure(.inputMissing, error.description)
        }
    }
}
