import Foundation
import GraphICS
import GraphICSServe
import ICalBridge

/// The user's defaults: `$GRAPH_ICS_CONFIG_DIR/config`, beside the saved sign-ins.
///
/// The format is the INI-like one git and khal use: `[section]` lines, `key = value` lines under them,
/// comment lines starting with `#` or `;`, blank lines. A value is the rest of the line, spaces around it
/// dropped (a `#` inside it is part of it). Keys are named `section.key` on the command line
/// (`graph-ics config set defaults.zone Europe/Berlin`). Every key is known (``UserConfigKey/all``); an
/// unknown one, a key set twice or a value a key does not take is an error naming the file and line.
///
/// Command-line options win over the file, the file over graph-ics's built-in defaults.
struct UserConfig: Equatable {
    /// One line of the file, kept as written so that `set` changes only the line it must.
    enum Line: Equatable {
        /// A blank line or a comment.
        case other(String)
        case section(String)
        /// `key` lower-cased; `written` the line as the file has it.
        case entry(section: String, key: String, value: String, written: String)
    }

    var lines: [Line] = []

    /// The file's name in the configuration folder.
    static let fileName = "config"

    init() {}

    /// Reads the text of a config file; `file` names it in errors.
    init(parsing text: String, file: String) throws(CommandFailure) {
        var section: String?
        var seen: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            func failure(_ text: String) -> CommandFailure {
                CommandFailure(.usage, "\(file):\(number): \(text)")
            }
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") {
                lines.append(.other(String(raw)))
                continue
            }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw failure("a section line is '[name]', not '\(line)'") }
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces).lowercased()
                guard UserConfigKey.sections.contains(name) else {
                    throw failure(
                        "unknown section [\(name)] (graph-ics knows \(UserConfigKey.sections.map { "[\($0)]" }.joined(separator: ", ")))"
                    )
                }
                section = name
                lines.append(.section(name))
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw failure("expected 'key = value', '[section]' or a comment, not '\(line)'")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard let section else { throw failure("'\(key)' comes before any [section]") }
            let name = "\(section).\(key)"
            if let problem = UserConfigKey.problem(name: name, value: value) { throw failure(problem) }
            if let earlier = seen[name] { throw failure("'\(name)' is already set on line \(earlier)") }
            seen[name] = number
            lines.append(.entry(section: section, key: key, value: value, written: String(raw)))
        }
        while lines.last == .other("") { lines.removeLast() }
    }

    /// The file in `directory`, or an empty configuration when there is none.
    static func load(directory: URL) throws(CommandFailure) -> UserConfig {
        let path = file(in: directory).path
        guard FileManager.default.fileExists(atPath: path) else { return UserConfig() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(.ioError, "graph-ics cannot read its config file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure(.usage, "\(path): not UTF-8 text")
        }
        return try UserConfig(parsing: text, file: path)
    }

    /// Where the config file of `directory` is.
    static func file(in directory: URL) -> URL {
        directory.appendingPathComponent(fileName, isDirectory: false)
    }

    /// The configuration folder (`GRAPH_ICS_CONFIG_DIR`, `$XDG_CONFIG_HOME/graph-ics` or
    /// `~/.config/graph-ics`), as the sign-ins use it.
    static func directory(environment: [String: String]) throws(CommandFailure) -> URL {
        do {
            return try AuthConfiguration.configDirectory(environment)
        } catch {
            throw CommandFailure(.usage, error.description)
        }
    }

    /// The value of `section.key`, nil when the file does not set it.
    subscript(_ name: String) -> String? {
        for case .entry(let section, let key, let value, _) in lines where "\(section).\(key)" == name {
            return value
        }
        return nil
    }

    /// Every key the file sets, in the file's order, with its value.
    var entries: [(name: String, value: String)] {
        lines.compactMap { line in
            guard case .entry(let section, let key, let value, _) = line else { return nil }
            return ("\(section).\(key)", value)
        }
    }

    /// Sets `name` (`section.key`): replaces the line that sets it, else adds a line at the end of its
    /// section, else adds the section at the end. Comments and the order of the other lines stay.
    mutating func set(_ name: String, to value: String) throws(UsageError) {
        let value = value.trimmingCharacters(in: .whitespaces)
        if let problem = UserConfigKey.problem(name: name, value: value) { throw UsageError(problem) }
        let parts = name.lowercased().split(separator: ".", maxSplits: 1).map(String.init)
        let (section, key) = (parts[0], parts[1])
        let entry = Line.entry(section: section, key: key, value: value, written: "\(key) = \(value)")
        if let index = lines.firstIndex(where: { $0.sets(section, key) }) {
            lines[index] = entry
        } else if let start = lines.firstIndex(of: .section(section)) {
            var end = start + 1
            while end < lines.count, case .entry = lines[end] { end += 1 }
            lines.insert(entry, at: end)
        } else {
            if !lines.isEmpty { lines.append(.other("")) }
            lines += [.section(section), entry]
        }
    }

    /// Removes the line that sets `name`; returns whether there was one.
    mutating func unset(_ name: String) throws(UsageError) -> Bool {
        guard UserConfigKey.named(name) != nil else { throw UsageError(UserConfigKey.unknown(name)) }
        let parts = name.lowercased().split(separator: ".", maxSplits: 1).map(String.init)
        guard let index = lines.firstIndex(where: { $0.sets(parts[0], parts[1]) }) else { return false }
        lines.remove(at: index)
        return true
    }

    /// The file's text: the lines as read, those `set` wrote as `key = value`.
    var text: String {
        lines.map { line in
            switch line {
            case .other(let text): text
            case .section(let name): "[\(name)]"
            case .entry(_, _, _, let written): written
            }
        }.joined(separator: "\n") + "\n"
    }

    /// Writes the file atomically (a temporary file renamed over it), creating the folder privately.
    func save(directory: URL) throws(CommandFailure) {
        let path = UserConfig.file(in: directory).path
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure(.cannotCreateOutput, "graph-ics cannot create \(directory.path)")
        }
        do {
            try AtomicFile(path).write(Data(text.utf8))
        } catch {
            throw CommandFailure(.ioError, error.description)
        }
    }
}

extension UserConfig.Line {
    func sets(_ section: String, _ key: String) -> Bool {
        guard case .entry(let entrySection, let entryKey, _, _) = self else { return false }
        return entrySection == section && entryKey == key
    }
}
