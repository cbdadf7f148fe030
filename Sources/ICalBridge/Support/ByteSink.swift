import Foundation

/// Something that takes output bytes: a file descriptor, a buffer.
public protocol ByteSink {
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(ICalBridgeError)
}

extension ByteSink {
    public mutating func write(_ bytes: [UInt8]) throws(ICalBridgeError) {
        var failure: ICalBridgeError?
        bytes.withUnsafeBytes { raw in
            do throws(ICalBridgeError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    public mutating func write(_ text: String) throws(ICalBridgeError) {
        try write(Array(text.utf8))
    }
}

/// Collects bytes in memory (tests, small outputs).
public struct ByteBuffer: ByteSink, Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws(ICalBridgeError) {
        self.bytes.append(contentsOf: bytes)
    }
}
