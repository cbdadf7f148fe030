/// A small argument reader with the conventions of swift-argument-parser: `--opt value`, `--opt=value`,
/// `-o value`, flags, `--` to end options, `-` as a positional (standard input or output).
struct Arguments {
    private var items: [String]
    private(set) var positionals: [String] = []
    private(set) var options: [(name: String, value: String?)] = []

    /// Reads `items` given the options that take a value (with their short aliases) and the flags.
    init(_ items: [String], valued: [String: String], flags: [String: String]) throws(UsageError) {
        self.items = items
        var index = 0
        var onlyPositionals = false
        while index < items.count {
            let item = items[index]
            index += 1
            if onlyPositionals || item == "-" || !item.hasPrefix("-") {
                positionals.append(item)
                continue
            }
            if item == "--" {
                onlyPositionals = true
                continue
            }
            var name = item
            var inlineValue: String?
            if item.hasPrefix("--"), let equals = item.firstIndex(of: "=") {
                name = String(item[..<equals])
                inlineValue = String(item[item.index(after: equals)...])
            }
            if let canonical = valued[name] {
                if let inlineValue {
                    options.append((canonical, inlineValue))
                } else {
                    guard index < items.count else { throw UsageError("\(name) needs a value") }
                    options.append((canonical, items[index]))
                    index += 1
                }
            } else if let canonical = flags[name] {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                options.append((canonical, nil))
            } else {
                throw UsageError("unknown option '\(name)'")
            }
        }
    }

    /// The value of a valued option given once (or nil); giving it twice is a usage error.
    func value(_ name: String) throws(UsageError) -> String? {
        let values = options.filter { $0.name == name }
        guard values.count <= 1 else { throw UsageError("\(name) is given more than once") }
        return values.first?.value
    }

    func flag(_ name: String) -> Bool {
        options.contains { $0.name == name }
    }
}
