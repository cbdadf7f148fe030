import Foundation

/// The paging links of one Graph collection response (`{"value": [...], "@odata.nextLink": "…"}`).
///
/// graph-ics's fetch layer follows `@odata.nextLink` verbatim; the events of the page are read separately
/// (``GraphEventDocument``), so this reads only the top-level strings and skips everything else.
public struct GraphPage: Sendable, Equatable {
    /// The URL of the next page, when there is one.
    public var nextLink: String?
    /// The delta link Graph gives on the last page of a delta query.
    public var deltaLink: String?

    public init(nextLink: String? = nil, deltaLink: String? = nil) {
        self.nextLink = nextLink
        self.deltaLink = deltaLink
    }

    /// Reads the links of a page; `nil` when `data` is not a JSON object.
    public static func links(in data: Data) -> GraphPage? {
        let content = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        return content.withUnsafeBytes { raw -> GraphPage? in
            var reader = JSONReader(raw.bindMemory(to: UInt8.self))
            var page = GraphPage()
            do throws(JSONReader.Failure) {
                reader.skipWhitespace()
                let isObject = try reader.object { reader, key throws(JSONReader.Failure) in
                    if key == "@odata.nextLink" {
                        page.nextLink = try reader.string()
                    } else if key == "@odata.deltaLink" {
                        page.deltaLink = try reader.string()
                    } else {
                        try reader.skip()
                    }
                }
                return isObject ? page : nil
            } catch {
                return nil
            }
        }
    }
}
