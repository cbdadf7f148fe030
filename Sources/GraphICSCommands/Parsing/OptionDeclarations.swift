/// How a shell completes an option's value or a command's operands.
enum ValueCompletion: Sendable, Equatable {
    /// Free text: the shell offers nothing.
    case anything
    /// A file name.
    case file
    /// One of these words.
    case choices([String])
}

/// Everything graph-ics says about one option: the parser reads its names, the help page, the completion
/// scripts and the manual page show it. Built only by the declarations (``Option``, ``Flag``).
struct OptionSpec: Sendable, Equatable {
    /// `--output`.
    var long: String
    /// `-o`, when the option has a short alias.
    var short: String?
    /// `FILE`; nil for a flag, which takes no value.
    var valueName: String?
    /// One or more sentences; a line break starts a new line in the help.
    var help: String
    /// The value taken when the option is absent, as typed.
    var defaultValue: String?
    var completion: ValueCompletion = .anything
    /// Accepted, but left out of the help, the completions and the manual page.
    var isHidden = false

    var takesValue: Bool { valueName != nil }

    /// The names the parser accepts, short first.
    var names: [String] { [short, long].compactMap { $0 } }

    /// `-o, --output FILE`, as the help and the manual page show it.
    var label: String {
        names.joined(separator: ", ") + (valueName.map { " " + $0 } ?? "")
    }

    /// The help's first sentence, without its full stop: the description completion scripts show. A
    /// sentence ends at a full stop and a space, but not after `e.g` or `i.e`.
    var summary: String {
        let line = Substring(help.split(separator: "\n").first ?? "")
        var end = line.endIndex
        var searched = line.startIndex
        while let stop = line[searched...].range(of: ". ") {
            let before = line[..<stop.lowerBound]
            if !before.hasSuffix("e.g") && !before.hasSuffix("i.e") {
                end = stop.lowerBound
                break
            }
            searched = stop.upperBound
        }
        let sentence = line[..<end]
        return String(sentence.hasSuffix(".") ? sentence.dropLast() : sentence)
    }

    /// `-h, --help`, which every command takes.
    static let help = OptionSpec(long: "--help", short: "-h", help: "Show this help.")

    /// Reads `names` (`"-o"`, `"--output"`): one long name, at most one short alias.
    init(
        names: [String], valueName: String?, help: String, completion: ValueCompletion = .anything,
        isHidden: Bool = false
    ) {
        self.init(
            long: names.first { $0.hasPrefix("--") } ?? names.last ?? "",
            short: names.first { !$0.hasPrefix("--") }, valueName: valueName, help: help, completion: completion,
            isHidden: isHidden)
    }

    init(
        long: String, short: String? = nil, valueName: String? = nil, help: String,
        completion: ValueCompletion = .anything, isHidden: Bool = false
    ) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.completion = completion
        self.isHidden = isHidden
    }
}

/// A declared option or flag: a stored property of an ``OptionGroup``.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// An option that takes a value, read into a `Value` by `read` (which may refuse it with a ``UsageError``).
/// Its value is read through ``Parsed`` with a key path to the declaration, never by name.
struct Option<Value>: OptionDeclaration {
    let spec: OptionSpec
    let read: @Sendable (String) throws(UsageError) -> Value

    init(spec: OptionSpec, read: @escaping @Sendable (String) throws(UsageError) -> Value) {
        self.spec = spec
        self.read = read
    }

    /// This option, also refusing an empty value with `message`.
    func refusingEmpty(_ message: String) -> Option {
        let read = self.read
        return Option(spec: spec) { (text: String) throws(UsageError) -> Value in
            guard !text.isEmpty else { throw UsageError(message) }
            return try read(text)
        }
    }

    /// This option, left out of the help, the completions and the manual page.
    func hidden() -> Option {
        var spec = self.spec
        spec.isHidden = true
        return Option(spec: spec, read: read)
    }
}

extension Option where Value == String {
    /// An option whose value is the text as typed: `Option("-o", "--output", value: "FILE", help: …)`.
    init(_ names: String..., value: String, help: String, completion: ValueCompletion = .anything) {
        self.init(spec: OptionSpec(names: names, valueName: value, help: help, completion: completion)) { $0 }
    }
}

extension Option where Value: CaseIterable & RawRepresentable & Sendable, Value.RawValue == String {
    /// An option whose value is one of `Value`'s cases, by raw value; the completions offer them and a
    /// value that is none of them is a usage error that lists them.
    init(_ names: String..., value: String, help: String) {
        let spec = OptionSpec(
            names: names, valueName: value, help: help, completion: .choices(Value.allCases.map(\.rawValue)))
        self.init(spec: spec) { (text: String) throws(UsageError) -> Value in try Choice.parse(text, for: spec.long) }
    }

    /// This option with the case taken when it is absent; the help and the manual page name it.
    func defaulting(to value: Value) -> Defaulted<Value> {
        var spec = self.spec
        spec.defaultValue = value.rawValue
        return Defaulted(option: Option(spec: spec, read: read), value: value)
    }
}

/// An option with a value for when it is absent: reading it never gives nil.
struct Defaulted<Value: Sendable>: OptionDeclaration {
    let option: Option<Value>
    let value: Value
    var spec: OptionSpec { option.spec }
}

/// An option that may be given several times (`--category A --category B`): read as every value, in
/// order; none when absent.
struct Repeated<Value>: OptionDeclaration {
    let option: Option<Value>
    var spec: OptionSpec { option.spec }
}

extension Option {
    /// This option, given any number of times.
    func repeatable() -> Repeated<Value> { Repeated(option: self) }
}

/// An option that takes no value: given or not.
struct Flag: OptionDeclaration {
    let spec: OptionSpec

    init(_ names: String..., help: String) {
        spec = OptionSpec(names: names, valueName: nil, help: help)
    }

    private init(spec: OptionSpec) { self.spec = spec }

    /// This flag, left out of the help, the completions and the manual page.
    func hidden() -> Flag {
        var spec = self.spec
        spec.isHidden = true
        return Flag(spec: spec)
    }
}

/// A set of option declarations: a struct whose stored properties are ``Option``s, ``Defaulted``s,
/// ``Flag``s and other groups. The stored properties are the list: whatever is declared is parsed and
/// documented, in declaration order, and nothing else is.
protocol OptionGroup: Sendable {
    init()
}

extension OptionGroup {
    /// Every option of this group and of the groups in it, in declaration order.
    var specs: [OptionSpec] {
        Mirror(reflecting: self).children.flatMap { child -> [OptionSpec] in
            if let declaration = child.value as? any OptionDeclaration { return [declaration.spec] }
            if let group = child.value as? any OptionGroup { return group.specs }
            return []
        }
    }
}

/// A command's options when it has none of its own.
struct NoOptions: OptionGroup {}
