import Testing

extension Tag {
    /// Tests that read zone rules from the system's tzdata (through libical, the TZif files or Foundation's
    /// `TimeZone`). `scripts/test-tzdata --zone-rules` runs them again with another tzdata release, and
    /// `scripts/check-zone-tags` fails when a test file that names a zone type lacks the tag.
    @Tag static var zoneRules: Self
}
