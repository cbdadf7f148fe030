import ICalBridge

extension Terminal {
    /// Prints each diagnostic on standard error as a warning or an error (`warning: ticket.ics: …`).
    func report(_ diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics {
            switch diagnostic.severity {
            case .warning: warning(diagnostic.description)
            case .error: error(diagnostic.description)
            }
        }
    }
}
