import Foundation
import ICalBridge

// libFuzzer target for the import conversion: `.ics` bytes → ImportPlan → the JSON payloads import POSTs.
// Built and run by scripts/fuzz with -sanitize=fuzzer, which links libFuzzer.

/// The user zone of every other run, so that floating times and all-day events take the zone path too.
private let userZone = ResolvedZone.iana("Europe/Berlin")

/// Plans the import of one input and writes its payloads, with options taken from the input's last byte:
/// bit 0 `notifiesAttendees`, bit 1 `strict`, bit 2 a user zone. Errors are expected; crashes, hangs and leaks
/// are the findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICS(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data: Data
    if let bytes, count > 0 {
        // No copy: the buffer is libFuzzer's exactly-sized allocation, so AddressSanitizer sees any read
        // past the input's end.
        data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes), count: count, deallocator: .none)
    } else {
        data = Data()
    }
    let flags = data.last ?? 0
    var options = ImportOptions(
        userZone: flags & 4 != 0 ? userZone : nil,
        strict: flags & 2 != 0,
        file: "fuzz.ics"
    )
    let settings = ImportSettings(notifiesAttendees: flags & 1 != 0)
    // The expansion limit is reached after 20 occurrences instead of 500: the limit and its warning are
    // still exercised, and an execution costs a fraction (occurrences 21…500 take the same code path).
    options.expansionLimit = 20
    do {
        let plan = try ICSToGraph.plan(data, options: options, settings: settings)
        _ = try plan.jsonData()
    } catch {
        // Refusing bad input with an error is the wanted outcome.
    }
    return 0
}

/// libFuzzer's entry for programs with a main of their own (`LLVMFuzzerRunDriver`, libclang_rt.fuzzer).
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The program's main. SwiftPM on Linux links an executable with `main` bound to `<module>_main` (so that
/// tests can link executables), which would leave libFuzzer's own main out: this hands over to libFuzzer.
@_cdecl("FuzzICS_main")
public func fuzzICSMain(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzICS)
}
