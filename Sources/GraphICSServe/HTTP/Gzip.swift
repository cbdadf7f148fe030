internal import CZlib
import Foundation

/// Why zlib could not compress or decompress.
public struct GzipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// zlib's return code (`Z_DATA_ERROR`, …), or 0 when graph-ics stopped on its own (a size limit).
    public var code: Int32
    /// A sentence saying what failed, with zlib's message when it gave one.
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// gzip streams (RFC 1952) with zlib: `Content-Encoding: gzip` bodies.
public enum Gzip {
    /// Compresses `data` into one gzip stream (`deflateInit2` with windowBits 31, memLevel 8), at `level`
    /// 0…9 (6: zlib's default trade-off).
    public static func compress(_ data: Data, level: Int32 = 6) throws(GzipError) -> Data {
        var stream = z_stream()
        try check(
            gics_z_deflate_init2(&stream, level, 31, 8, Z_DEFAULT_STRATEGY), stream: stream, doing: "start gzip")
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        var output = Data(count: bound)
        let result = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                // An empty input has no address: zlib accepts a null next_in with avail_in 0.
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else {
            throw GzipError(code: result, message: "gzip could not compress \(data.count) bytes (zlib error \(result))")
        }
        output.count = Int(stream.total_out)
        return output
    }

    /// Decompresses one gzip stream (`inflateInit2` with windowBits 31); throws for bytes that are not
    /// gzip, a truncated stream, or output beyond `limit` bytes.
    public static func decompress(_ data: Data, limit: Int = 1 << 30) throws(GzipError) -> Data {
        var stream = z_stream()
        try check(gics_z_inflate_init2(&stream, 31), stream: stream, doing: "start reading gzip")
        defer { inflateEnd(&stream) }
        var output = Data()
        let failure = data.withUnsafeBytes { input in
            // An empty input has no address: zlib accepts a null next_in with avail_in 0.
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            return inflateAll(&stream, into: &output, limit: limit)
        }
        if let failure {
            throw failure
        }
        return output
    }

    /// Inflates what `stream` points to into `output`, 64 KiB at a time; the error, or nil at the stream's end.
    private static func inflateAll(_ stream: inout z_stream, into output: inout Data, limit: Int) -> GzipError? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = chunk.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                return inflate(&stream, Z_NO_FLUSH)
            }
            output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
            switch result {
            case _ where output.count > limit:
                return GzipError(code: 0, message: "the gzip stream decompresses to more than \(limit) bytes")
            case Z_STREAM_END:
                return nil
            case Z_OK where stream.avail_in == 0 && stream.avail_out != 0, Z_BUF_ERROR:
                return GzipError(code: Z_BUF_ERROR, message: "the gzip stream ends before its last block")
            case Z_OK:
                continue
            default:
                let detail = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
                return GzipError(code: result, message: "gzip could not read the stream: \(detail)")
            }
        }
    }

    /// The one reader of zlib's return codes: throws unless `result` is `Z_OK`.
    private static func check(_ result: Int32, stream: z_stream, doing action: String) throws(GzipError) {
        guard result != Z_OK else { return }
        let detail = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
        throw GzipError(code: result, message: "gzip could not \(action): \(detail)")
    }
}
