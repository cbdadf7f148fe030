/// The CalDAV gateway: logins (`dav.json`), the XML of WebDAV and CalDAV requests and answers, and the
/// gateway that answers `/dav/` from the mirror of each calendar and writes through `EventChange` and the
/// one `MailingRule`. `graph-ics serve` mounts it beside the feeds.
enum GraphICSDAV {}
