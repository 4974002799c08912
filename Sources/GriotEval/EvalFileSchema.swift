import Yams

/// The keys a golden-question file may hold, checked before the file is read, so that a typo
/// cannot pass: `gate:` for `gates:` would run with no gates, `must_contian` would be ignored and
/// its case would pass. Each problem names its line and key (issue 26).
enum EvalFileSchema {
    static let topKeys: Set<String> = ["name", "description", "database", "stories", "gates", "defaults", "cases"]
    static let defaultKeys: Set<String> = ["assistant", "viewer"]
    static let viewerKeys: Set<String> = ["user", "families"]
    static let caseKeys: Set<String> = ["id", "kind", "split", "language", "assistant", "question", "conversation", "viewer", "course", "role", "expect"]
    static let expectKeys: Set<String> = [
        "stories", "phrases", "must_contain", "must_not_contain", "no_content", "citation_required", "route", "forbidden_stories",
        "latency_ms", "grades", "answer_facts",
    ]

    /// Every problem of the file's shape: unknown keys, no gates, no cases.
    static func problems(in text: String) -> [String] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            return ["is not YAML: \(error)"]
        }
        guard let root, let top = root.mapping else { return ["is not a golden-question file: it must be a mapping of name, database, gates and cases"] }
        var problems: [String] = []
        func line(_ node: Node) -> String { node.mark.map { "line \($0.line): " } ?? "" }
        func check(_ mapping: Node.Mapping, allowed: Set<String>, in place: String) {
            for (key, _) in mapping {
                guard let name = key.string, !allowed.contains(name) else { continue }
                let near = allowed.filter { distance(name, $0) <= 2 }.min { distance(name, $0) < distance(name, $1) }
                    .map { "; did you mean `\($0)`?" } ?? ""
                problems.append("\(line(key))unknown key `\(name)` \(place)\(near) (the keys are \(allowed.sorted().joined(separator: ", ")))")
            }
        }
        check(top, allowed: topKeys, in: "at the top")
        if top["gates"] == nil {
            problems.append("has no `gates:`; a file without gates passes whatever the answers are (see evals/README.md)")
        } else if let gates = top["gates"], gates.mapping?.isEmpty ?? true {
            problems.append("\(line(gates))`gates` is empty or not a mapping of metric: threshold; a file without gates passes whatever the answers are")
        }
        if let defaults = top["defaults"]?.mapping {
            check(defaults, allowed: defaultKeys, in: "in defaults")
            if let viewer = defaults["viewer"]?.mapping { check(viewer, allowed: viewerKeys, in: "in defaults.viewer") }
        }
        guard let casesNode = top["cases"] else {
            problems.append("has no `cases:`; write at least one case")
            return problems
        }
        guard let cases = casesNode.sequence, !cases.isEmpty else {
            problems.append("\(line(casesNode))`cases` is empty or not a list; write at least one case")
            return problems
        }
        for (index, item) in cases.enumerated() {
            guard let mapping = item.mapping else {
                problems.append("\(line(item))case \(index + 1) is not a mapping of id, question, expect ...")
                continue
            }
            let label = mapping["id"]?.string.map { "in case `\($0)`" } ?? "in case \(index + 1)"
            check(mapping, allowed: caseKeys, in: label)
            if let viewer = mapping["viewer"]?.mapping { check(viewer, allowed: viewerKeys, in: label + " (viewer)") }
            if let expect = mapping["expect"] {
                if let expectMapping = expect.mapping {
                    check(expectMapping, allowed: expectKeys, in: label + " (expect)")
                } else {
                    problems.append("\(line(expect))`expect` \(label) is not a mapping of expectations")
                }
            }
        }
        return problems
    }

    /// The line of the value at `path` (as a decoding error gives it), when the file parses.
    static func line(of path: [any CodingKey], in text: String) -> Int? {
        guard var node = try? Yams.compose(yaml: text) else { return nil }
        for key in path {
            if let index = key.intValue, let sequence = node.sequence, sequence.indices.contains(index) {
                node = sequence[index]
            } else if let value = node.mapping?[key.stringValue] {
                node = value
            } else {
                break
            }
        }
        return node.mark?.line
    }

    /// Edit distance, for the "did you mean" hint; only a close key is named.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
