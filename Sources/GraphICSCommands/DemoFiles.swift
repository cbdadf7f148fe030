import Foundation
import GraphStandIn

/// The `.ics` files `graph-ics demo` writes into its folder (a ticket, an invitation, an event made
/// locally in the synced folder), dated in the demo's week: Swift source, so an installed graph-ics has them.
struct DemoFiles {
    /// The Monday of the demo's week (00:00 in the mailbox's zone).
    let monday: Date

    /// `YYYYMMDD` of the day `offset` days after Monday, in the mailbox's zone.
    func day(_ offset: Int) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: DemoMailbox.ianaZone) ?? .gmt
        let date = calendar.date(byAdding: .day, value: offset, to: monday) ?? monday
        let p = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d%02d%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0)
    }

    static let berlin = """
        BEGIN:VTIMEZONE\r
        TZID:Europe/Berlin\r
        BEGIN:DAYLIGHT\r
        TZOFFSETFROM:+0100\r
        TZOFFSETTO:+0200\r
        TZNAME:CEST\r
        DTSTART:19700329T020000\r
        RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
        END:DAYLIGHT\r
        BEGIN:STANDARD\r
        TZOFFSETFROM:+0200\r
        TZOFFSETTO:+0100\r
        TZNAME:CET\r
        DTSTART:19701025T030000\r
        RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
        END:STANDARD\r
        END:VTIMEZONE\r

        """

    /// Saturday's train, as a rail operator's booking mail attaches it.
    var ticket: String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Example Rail//Booking 4.1//EN\r
        METHOD:PUBLISH\r
        \(Self.berlin)BEGIN:VEVENT\r
        UID:booking-4KQ7XZ-\(day(5))@rail.example\r
        DTSTAMP:\(day(0))T080000Z\r
        DTSTART;TZID=Europe/Berlin:\(day(5))T100400\r
        DTEND;TZID=Europe/Berlin:\(day(5))T115200\r
        SUMMARY:Train ICE 1003 Berlin Hbf → Hamburg Hbf\r
        LOCATION:Berlin Hbf\\, platform 12\r
        DESCRIPTION:Booking 4KQ7XZ. Coach 7\\, seat 45 (window).\\nShow the QR code on board.\r
        ORGANIZER;CN=Example Rail:mailto:tickets@rail.example\r
        STATUS:CONFIRMED\r
        TRANSP:OPAQUE\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    /// Monday evening, an invitation from a friend with two more guests.
    var invitation: String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Example Mail//Calendar 2.0//EN\r
        METHOD:REQUEST\r
        \(Self.berlin)BEGIN:VEVENT\r
        UID:game-night-\(day(0))@fabrikam.example\r
        DTSTAMP:\(day(0))T070000Z\r
        SEQUENCE:0\r
        DTSTART;TZID=Europe/Berlin:\(day(0))T190000\r
        DTEND;TZID=Europe/Berlin:\(day(0))T223000\r
        SUMMARY:Board game night\r
        LOCATION:Sam's place\r
        ORGANIZER;CN=Sam Friend:mailto:sam.friend@fabrikam.example\r
        ATTENDEE;CN=Ana Example;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:\(DemoMailbox.mail)\r
        ATTENDEE;CN=Lee Park;PARTSTAT=ACCEPTED:mailto:lee.park@fabrikam.example\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    /// Wednesday's lunch, added in the synced folder as a calendar app would.
    var lunch: String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//graph-ics//demo//EN\r
        \(Self.berlin)BEGIN:VEVENT\r
        UID:lunch-\(day(2))@graph-ics.example\r
        DTSTAMP:\(day(0))T090000Z\r
        DTSTART;TZID=Europe/Berlin:\(day(2))T123000\r
        DTEND;TZID=Europe/Berlin:\(day(2))T133000\r
        SUMMARY:Lunch with Adele\r
        LOCATION:Canteen\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }
}
