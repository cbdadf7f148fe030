internal import CCurl

/// A libcurl header list (`struct curl_slist`) graph-ics builds for one transfer.
///
/// Owns the list and frees it with `curl_slist_free_all` in `deinit`. libcurl keeps only the pointer
/// given to `CURLOPT_HTTPHEADER`, so the `CurlEasyHandle` holds this object until the transfer is over.
/// Not thread-safe; used by one transfer at a time.
final class CurlHeaderList {
    private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    init() {}

    deinit {
        curl_slist_free_all(pointer)
    }

    /// Appends one raw header line (`Name: value`, `Name;` for an empty value, `Name:` to remove one of
    /// libcurl's own headers), copied by `curl_slist_append`. Returns false when libcurl ran out of memory.
    @discardableResult
    func append(_ line: String) -> Bool {
        guard let next = curl_slist_append(pointer, line) else {
            return false
        }
        pointer = next
        return true
    }
}
