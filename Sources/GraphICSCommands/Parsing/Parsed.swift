/// A command line read against a group of declarations, with the conventions of swift-argument-parser:
/// `--opt value`, `--opt=value`, `-o value`, flags, `--` to end options, `-` as a positional (standard
/// input or output).
///
/// Values are read through key paths to the declarations (`try parsed[\.calendar]`), so an option that is
/// not declared cannot be read, and every declared one is parsed and documented.
struct Parsed<Options: OptionGroup> {
    let declarations: Options
    /// The words that are not options, in order.
    let positionals: [String]
    /// What was given for each option, by long name: a value, or nil for a flag.
    private let given: [String: [String?]]

    /// Reads `arguments` given the options `declarations` declares.
    init(_ arguments: [String], declarations: Options = Options()) throws(UsageError) {
        let (positionals, given) = try Self.read(arguments, specs: declarations.specs)
        self.init(declarations: declarations, positionals: positionals, given: given)
    }

    private init(declarations: Options, positionals: [String], given: [String: [String?]]) {
        self.declarations = declarations
        self.positionals = positionals
        self.given = given
    }

    /// The options of a group declared in `Options`, for the type that reads that group.
    func group<Group: OptionGroup>(_ path: KeyPath<Options, Group>) -> Parsed<Group> {
        Parsed<Group>(declarations: declarations[keyPath: path], positionals: positionals, given: given)
    }

    /// The value of an option given at most once, read by its declaration; nil when absent.
    subscript<Value>(_ path: KeyPath<Options, Option<Value>>) -> Value? {
        get throws(UsageError) {
            let option = declarations[keyPath: path]
            guard let text = try text(option.spec) else { return nil }
            return try option.read(text)
        }
    }

    /// The value of an option with a default: the default when absent.
    subscript<Value>(_ path: KeyPath<Options, Defaulted<Value>>) -> Value {
        get throws(UsageError) {
            let declaration = declarations[keyPath: path]
            guard let text = try text(declaration.spec) else { return declaration.value }
            return try declaration.option.read(text)
        }
    }

    /// Every value of an option that may be repeated, in the order given.
    subscript<Value>(_ path: KeyPath<Options, Repeated<Value>>) -> [Value] {
        get throws(UsageError) {
            let option = declarations[keyPath: path].option
            var values: [Value] = []
            for text in given[option.spec.long] ?? [] {
                if let text { values.append(try option.read(text)) }
            }
            return values
        }
    }

    /// Whether a flag was given (once or more).
    subscript(_ path: KeyPath<Options, Flag>) -> Bool {
        given[declarations[keyPath: path].spec.long] != nil
    }

    private func text(_ spec: OptionSpec) throws(UsageError) -> String? {
        let values = given[spec.long] ?? []
        guard values.count <= 1 else { throw UsageError("\(spec.long) is given more than once") }
        return values.first ?? nil
    }

    /// Splits `items` into positionals and options.
    private static func read(
        _ items: [String], specs: [OptionSpec]
    ) throws(UsageError) -> ([String], [String: [String?]]) {
        var byName: [String: OptionSpec] = [:]
        for spec in specs {
            for name in spec.names { byName[name] = spec }
        }
        var positionals: [String] = []
        var given: [String: [String?]] = [:]
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
            guard let spec = byName[name] else {
                let known = specs.filter { !$0.isHidden }.flatMap(\.names) + OptionSpec.help.names
                throw UsageError("unknown option '\(name)'" + Suggestion.hint(for: name, among: known))
            }
            if !spec.takesValue {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                given[spec.long, default: []].append(nil)
            } else if let inlineValue {
                given[spec.long, default: []].append(inlineValue)
            } else {
                guard index < items.count else { throw UsageError("\(name) needs a value") }
                given[spec.long, default: []].append(items[index])
                index += 1
            }
        }
        return (positionals, given)
    }
}
