import Foundation

extension VdirFolder {
    /// The text of a metadata file without its trailing line breaks; nil when the file is absent.
    public func metadata(_ key: VdirMetadata) throws -> String? {
        let path = filePath(key.rawValue)
        guard pathExists(path) else { return nil }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw SyncStoreError(.io, "graph-ics cannot read the metadata file", path: path)
        }
        var text = String(decoding: contents, as: UTF8.self)
        while let last = text.last, last.isNewline {
            text.removeLast()
        }
        return text
    }

    /// Writes `value` (trailing line breaks left out, none added) into a metadata file, atomically, unless
    /// the file already says it (trailing line breaks aside): an unchanged name or colour never touches the
    /// file. Returns whether the file was written.
    @discardableResult
    public func setMetadata(_ key: VdirMetadata, to newValue: String) throws -> Bool {
        var value = newValue
        while let last = value.last, last.isNewline {
            value.removeLast()
        }
        if key == .color, Self.vdirColor(value) == nil {
            throw SyncStoreError(.invalidValue, "\"\(value)\" is not a colour of the form #RRGGBB", path: path)
        }
        if try metadata(key) == value {
            return false
        }
        _ = try replace(key.rawValue, with: Data(value.utf8))
        return true
    }

    /// `value` when it is a colour as the vdir format writes one (`#` and six hexadecimal digits, as
    /// Graph's `hexColor` gives it), else nil (Graph sends an empty `hexColor` for a calendar without one).
    public static func vdirColor(_ value: String) -> String? {
        let utf8 = Array(value.utf8)
        guard utf8.count == 7, utf8[0] == UInt8(ascii: "#"),
            utf8.dropFirst().allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
        else { return nil }
        return value
    }
}

private func pathExists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
}
