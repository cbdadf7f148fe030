import Foundation
import Testing

@testable import ICalBridge

/// Inputs the fuzzers (`scripts/fuzz`) found crashes, hangs or leaks with, kept in `fixtures/fuzz/`: every
/// one converts again on each test run, with every option the fuzzers toggle, without a crash and within a
/// bound far above a normal conversion's time.
@Suite(.tags(.zoneRules)) struct FuzzRegressionTests {
    /// Longest one conversion of a fuzz input may take (a debug build under the address sanitizer on a
    /// shared machine included); the hangs found took minutes in a debug build before their fixes.
    static let bound: Duration = .seconds(5)

    static var names: [String] {
        let folder = Fixtures.root.appendingPathComponent("fuzz")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".ics") || $0.hasSuffix(".json") }.sorted()
    }

    /// Runs `body` on a thread of its own (with a main thread's 8 MiB stack) and waits at most ``bound``
    /// for it: true when it finished, so that a hang fails the test instead of stalling the run.
    static func finishesInTime(_ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        let (seconds, attoseconds) = bound.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        return done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }

    @Test("fixtures/fuzz holds the fuzzers' findings")
    func findingsArePresent() {
        #expect(!Self.names.isEmpty)
    }

    @Test("every fuzz finding converts without a crash within the bound", arguments: names)
    func convertsInBoundedTime(name: String) throws {
        let data = try Fixtures.data("fuzz/" + name)
        if name.hasSuffix(".ics") {
            // The ics fuzzer's options: --as-meeting, --strict, a user zone.
            for flags in 0..<8 {
                let options = ImportOptions(
                    userZone: flags & 4 != 0 ? ResolvedZone.iana("Europe/Berlin") : nil,
                    strict: flags & 2 != 0,
                    file: name
                )
                let settings = ImportSettings(notifiesAttendees: flags & 1 != 0)
                let finished = Self.finishesInTime {
                    if let plan = try? ICSToGraph.plan(data, options: options, settings: settings) {
                        _ = try? plan.jsonData()
                    }
                }
                #expect(finished, "\(name) with options \(flags) took longer than \(Self.bound)")
            }
        } else {
            // The graph-json fuzzer's fallback zones.
            for zone in [nil, ResolvedZone.iana("Europe/Berlin"), ResolvedZone.iana("Australia/Sydney")] {
                let finished = Self.finishesInTime { _ = try? Fixtures.convert(data, file: name, zone: zone) }
                #expect(finished, "\(name) with fallback zone \(zone?.name ?? "none") took longer than \(Self.bound)")
            }
        }
    }

    @Test("far-future offsets repeat the 400-year Gregorian cycle, summer time included")
    func farFutureOffsets() throws {
        let berlin = try #require(ICalZone.named("Europe/Berlin"))
        let sydney = try #require(ICalZone.named("Australia/Sydney"))
        // 4054-07-01T12:00:00Z and 4054-01-15T12:00:00Z.
        let july = CivilDateTime(year: 4054, month: 7, day: 1, hour: 12).secondsSinceEpoch
        let january = CivilDateTime(year: 4054, month: 1, day: 15, hour: 12).secondsSinceEpoch
        let finished = Self.finishesInTime {
            #expect(berlin.utcOffset(at: july) == 7200)
            #expect(berlin.utcOffset(at: january) == 3600)
            #expect(sydney.utcOffset(at: july) == 36000)
            #expect(sydney.utcOffset(at: january) == 39600)
            #expect(berlin.utcOffset(at: july) == berlin.utcOffset(at: july - 5 * ICalZone.gregorianCycle))
        }
        #expect(finished)
    }

    @Test("a Graph series ending in 4054 converts at once, keeps its UNTIL, and its zone's rules go on")
    func seriesEndingFarAhead() throws {
        let json = #"""
            {"value":[{"id":"S","iCalUId":"far","type":"seriesMaster","subject":"Far",
            "start":{"dateTime":"2026-11-30T08:30:00.0000000","timeZone":"UTC"},
            "end":{"dateTime":"2026-11-30T08:45:00.0000000","timeZone":"UTC"},
            "originalStartTimeZone":"W. Europe Standard Time","originalEndTimeZone":"W. Europe Standard Time",
            "recurrence":{"pattern":{"type":"weekly","interval":1,"daysOfWeek":["monday"]},
            "range":{"type":"endDate","startDate":"2026-11-30","endDate":"4054-07-29"}}}]}
            """#
        let result = ConversionResult()
        let finished = Self.finishesInTime { result.set(try? Fixtures.convert(Data(json.utf8)).text) }
        #expect(finished)
        let text = try #require(result.get())
        let event = try #require(Fixtures.events(text).first)
        // The end of 4054-07-29 in Berlin's summer time (UTC+2).
        #expect(Fixtures.value("RRULE", in: event)?.contains("UNTIL=40540729T215959Z") == true)
        // Cut at 2199 like every zone use, but open-ended: no TZUNTIL ends the zone before the series.
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"))
        #expect(!text.contains("TZUNTIL"))
    }
}

/// The text a conversion on another thread produced, handed over under a lock.
private final class ConversionResult: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?

    func set(_ text: String?) { lock.withLock { self.text = text } }
    func get() -> String? { lock.withLock { text } }
}
