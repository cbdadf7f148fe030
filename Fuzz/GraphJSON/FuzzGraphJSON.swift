import Foundation
import ICalBridge

// libFuzzer target for the export conversion: Graph JSON bytes (a calendarView page, one event or an
// array) → GraphEventDocument → VCALENDAR text. Built and run by scripts/fuzz with -sanitize=fuzzer,
// which links libFuzzer.

/// The fallback zones the runs alternate between: none (UTC), a northern and a southern DST zone.
private let fallbackZones: [ResolvedZone?] = [
    nil, ResolvedZone.iana("Europe/Berlin"), ResolvedZone.iana("Australia/Sydney"), ResolvedZone.iana("UTC"),
]

/// Converts one input to iCalendar into memory, the fallback zone chosen by the input's last byte.
/// Errors are expected; crashes, hangs and leaks are the findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraphJSON(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data: Data
    if let bytes, count > 0 {
        // No copy: the buffer is libFuzzer's exactly-sized allocation, so AddressSanitizer sees any read
        // past the input's end.
        data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes), count: count, deallocator: .none)
    } else {
        data = Data()
    }
    let zone = fallbackZones[Int((data.last ?? 0) & 3)]
    var sink = ByteBuffer()
    do {
        _ = try GraphToICS.convert(
            data,
            options: ExportOptions(fallbackZone: zone, timestamp: 1_796_083_200, file: "fuzz.json"),
            into: &sink
        )
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
@_cdecl("FuzzGraphJSON_main")
public func fuzzGraphJSONMain(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzGraphJSON)
}
