/// Words that must be one of a fixed set: an enum-valued option, a shell name.
enum Choice {
    /// The case of `Value` whose raw value is `text`.
    ///
    /// - Throws: a usage error naming `name`, listing every case and suggesting the nearest:
    ///   `--recurrence must be instances or series, not 'serie' (did you mean 'series'?)`.
    static func parse<Value: CaseIterable & RawRepresentable>(
        _ text: String, for name: String
    ) throws(UsageError) -> Value where Value.RawValue == String {
        if let value = Value(rawValue: text) { return value }
        let words = Value.allCases.map(\.rawValue)
        throw UsageError("\(name) must be \(list(words)), not '\(text)'" + Suggestion.hint(for: text, among: words))
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ words: [String]) -> String {
        guard let last = words.last else { return "" }
        let others = words.dropLast()
        return others.isEmpty ? last : others.joined(separator: ", ") + " or " + last
    }
}

/// "Did you mean": the known words nearest to a misspelt one, as git and swift-argument-parser suggest them.
enum Suggestion {
    /// The candidates at the smallest edit distance from `word`, when that distance is small for the word's
    /// length (leading dashes not counted): none for one or two letters, one edit up to five, two beyond.
    static func nearest(to word: String, among candidates: [String]) -> [String] {
        let letters = word.drop { $0 == "-" }.count
        let allowed = letters <= 2 ? 0 : letters <= 5 ? 1 : 2
        guard allowed > 0 else { return [] }
        let scored = candidates.map { (word: $0, distance: distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.map(\.distance).min(), best <= allowed else { return [] }
        return scored.filter { $0.distance == best }.map(\.word)
    }

    /// ` (did you mean 'export'?)`, or nothing when no candidate is near.
    static func hint(for word: String, among candidates: [String]) -> String {
        let near = nearest(to: word, among: candidates)
        guard !near.isEmpty else { return "" }
        return " (did you mean " + Choice.list(near.map { "'\($0)'" }) + "?)"
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    /// neighbouring characters (`exprot` → `export` is one edit).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}
