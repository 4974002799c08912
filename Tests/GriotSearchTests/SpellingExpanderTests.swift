@testable import GriotSearch
import Testing

@Suite struct SpellingExpanderTests {
    let expander = SpellingExpander(vocabulary: [
        "chicago": 14, "gumbo": 6, "levee": 9, "oakland": 11, "greenwood": 4, "bronzevill": 3,
    ])

    func terms(_ expansions: [SpellingExpander.Expansion]) -> [String] { expansions.map(\.term) }

    @Test func shortTermsAllowOneEditAndLongerOnesTwo() {
        // Five characters or fewer: one edit.
        #expect(expander.expansions(of: "gumbi") == [.init(term: "gumbo", distance: 1, documentFrequency: 6)])
        #expect(expander.expansions(of: "levve") == [.init(term: "levee", distance: 1, documentFrequency: 9)])
        #expect(expander.expansions(of: "gumb") == [.init(term: "gumbo", distance: 1, documentFrequency: 6)])
        #expect(expander.expansions(of: "gombi").isEmpty)   // two edits from "gumbo"
        #expect(expander.expansions(of: "lebbe").isEmpty)
        // Six characters or more: two edits, never three.
        #expect(expander.expansions(of: "chicaga") == [.init(term: "chicago", distance: 1, documentFrequency: 14)])
        #expect(expander.expansions(of: "chocaga") == [.init(term: "chicago", distance: 2, documentFrequency: 14)])
        #expect(expander.expansions(of: "shocaga").isEmpty)
        #expect(expander.expansions(of: "okland") == [.init(term: "oakland", distance: 1, documentFrequency: 11)])
        // The length rule follows `shortLength`.
        let strict = SpellingExpander(vocabulary: ["chicago": 1], shortLength: 7)
        #expect(strict.maximumDistance(forLength: 7) == 1)
        #expect(strict.expansions(of: "chocaga").isEmpty)
        #expect(strict.expansions(of: "chicaga").map(\.term) == ["chicago"])
    }

    @Test func twoEditsAnywhereInTheTerm() {
        // At the start, at the end, one at each end, and both in the middle (where the
        // lookup cuts the query in two): each takes a different path through the search.
        for typo in ["xxicago", "chicaxx", "xhicagx", "chixxgo", "chxcxgo", "chicgo", "chiccaggo", "ichcago", "oaxxkland", "greeenwod", "bronzvile"] {
            #expect(expander.expansions(of: typo).count == 1, "\(typo)")
        }
        #expect(expander.expansions(of: "greeenwod").first?.distance == 2)
    }

    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(expander.expansions(of: "gubmo") == [.init(term: "gumbo", distance: 1, documentFrequency: 6)])
        #expect(expander.expansions(of: "lveee").map(\.distance) == [1])
        #expect(expander.expansions(of: "chiacgo").map(\.distance) == [1])
        #expect(expander.expansions(of: "hciacgo").map(\.distance) == [2])
        #expect(expander.expansions(of: "oaklnad").map(\.distance) == [1])
        // Three swaps are three edits.
        #expect(expander.expansions(of: "hciacgoo").isEmpty)
    }

    @Test func knownTermsAreNotExpanded() {
        for term in ["chicago", "gumbo", "levee", "oakland", "greenwood", "bronzevill"] {
            #expect(expander.expansions(of: term).isEmpty, "\(term)")
        }
        // A known term that is close to another one still is not expanded.
        let near = SpellingExpander(vocabulary: ["carter": 5, "carver": 2, "porter": 9])
        #expect(near.expansions(of: "carter").isEmpty)
        #expect(near.expansions(of: "parter").map(\.term) == ["porter", "carter", "carver"])
    }

    @Test func nearestFirstThenMoreFrequentThenAlphabetical() {
        let vocabulary = ["cable": 9, "table": 9, "maple": 2, "marble": 50, "mabel": 1, "fable": 9, "stable": 70]
        let expander = SpellingExpander(vocabulary: vocabulary)
        // All one edit from "mable", except "stable" (two: not allowed for five letters).
        #expect(terms(expander.expansions(of: "mable", limit: 10)) == ["marble", "cable", "fable", "table", "maple", "mabel"])
        #expect(terms(expander.expansions(of: "mable")) == ["marble", "cable", "fable"])
        #expect(terms(expander.expansions(of: "mable", limit: 1)) == ["marble"])
        #expect(expander.expansions(of: "mable", limit: 0).isEmpty)

        // A nearer term comes first even when a farther one is far more frequent.
        let long = SpellingExpander(vocabulary: ["chicago": 1, "chica": 100, "chicana": 5])
        #expect(long.expansions(of: "chicaga", limit: 5) == [
            .init(term: "chicana", distance: 1, documentFrequency: 5),
            .init(term: "chicago", distance: 1, documentFrequency: 1),
            .init(term: "chica", distance: 2, documentFrequency: 100),
        ])
    }

    @Test func shortTermsAndTermsWithDigitsAreNotExpanded() {
        let expander = SpellingExpander(vocabulary: ["pie": 3, "pies": 2, "flood": 5, "1927": 4, "1927s": 1, "b17": 1, "leve1": 40, "levee": 2])
        #expect(expander.expansions(of: "pye").isEmpty)         // three characters
        #expect(expander.expansions(of: "pe").isEmpty)
        #expect(expander.expansions(of: "").isEmpty)
        #expect(expander.expansions(of: "piez").map(\.term) == ["pie", "pies"])  // four is enough
        #expect(expander.expansions(of: "1928").isEmpty)
        #expect(expander.expansions(of: "fl0od").isEmpty)
        #expect(expander.expansions(of: "flood1").isEmpty)
        #expect(expander.expansions(of: "flood١").isEmpty)      // an Arabic-Indic digit
        // Vocabulary terms with digits are never offered.
        #expect(expander.expansions(of: "levex", limit: 10).map(\.term) == ["levee"])
        #expect(expander.termCount == 4)
    }

    @Test func charactersAreUnicodeScalars() {
        let expander = SpellingExpander(vocabulary: ["oakland": 1, "philomèn": 2])
        #expect(expander.expansions(of: "oaklánd") == [.init(term: "oakland", distance: 1, documentFrequency: 1)])
        #expect(expander.expansions(of: "philomen") == [.init(term: "philomèn", distance: 1, documentFrequency: 2)])
        #expect(expander.expansions(of: "phiolmèn").map(\.distance) == [1])
    }

    /// The trie walks against the textbook table over every vocabulary term, on a dense
    /// vocabulary (small alphabet) so that most queries have many close terms.
    @Test func matchesBruteForceOnRandomTerms() {
        var random = SeededRandom(seed: 20_260_301)
        let alphabet = Array("abcdeé".unicodeScalars)
        func randomTerm(_ lengths: ClosedRange<Int>) -> [Unicode.Scalar] {
            (0..<Int.random(in: lengths, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
        }
        func string(_ scalars: [Unicode.Scalar]) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            return String(view)
        }
        var vocabulary: [String: Int] = [:]
        while vocabulary.count < 3000 {
            vocabulary[string(randomTerm(1...11))] = Int.random(in: 1...20, using: &random)
        }
        let expander = SpellingExpander(vocabulary: vocabulary)
        let entries = vocabulary.map { (term: $0.key, scalars: Array($0.key.unicodeScalars), frequency: $0.value) }
        let terms = entries.map(\.scalars)

        // Queries: vocabulary terms with one to three random edits, and random strings.
        var queries: [[Unicode.Scalar]] = []
        for number in 0..<300 {
            if number % 5 == 0 {
                queries.append(randomTerm(4...12))
                continue
            }
            var query = terms.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 0...query.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where position < query.count: query.remove(at: position)
                case 1: query.insert(alphabet.randomElement(using: &random)!, at: position)
                case 2 where position + 1 < query.count: query.swapAt(position, position + 1)
                default: if position < query.count { query[position] = alphabet.randomElement(using: &random)! }
                }
            }
            queries.append(query)
        }

        var checked = 0
        var expandedQueries = 0
        for query in queries {
            let k = expander.maximumDistance(forLength: query.count)
            var expected: [String: Int] = [:]
            for entry in entries where abs(entry.scalars.count - query.count) <= k {
                let distance = restrictedDamerauLevenshtein(query, entry.scalars)
                if distance <= k { expected[entry.term] = distance }
            }
            // Every close term, at its distance, from the fast path.
            var found: [String: Int] = [:]
            for expansion in expander.candidates(of: query.map(\.value), maxDistance: k) {
                #expect(found[expansion.term] == nil, "\(string(query)): \(expansion.term) twice")
                found[expansion.term] = expansion.distance
                #expect(expansion.documentFrequency == vocabulary[expansion.term])
            }
            #expect(found == expected, "\(string(query))")

            // And the public answer: the same terms, ranked and cut.
            let ranked = expected.map { SpellingExpander.Expansion(term: $0.key, distance: $0.value, documentFrequency: vocabulary[$0.key]!) }
                .sorted { ($0.distance, -$0.documentFrequency, $0.term) < ($1.distance, -$1.documentFrequency, $1.term) }
            let answer = expander.expansions(of: string(query), limit: 4)
            if query.count < 4 || vocabulary[string(query)] != nil {
                #expect(answer.isEmpty)
            } else {
                #expect(answer == Array(ranked.prefix(4)), "\(string(query))")
                if !answer.isEmpty { expandedQueries += 1 }
            }
            checked += 1
        }
        #expect(checked == 300)
        #expect(expandedQueries > 100)  // the check is not vacuous
    }

    /// Optimal string alignment distance, the plain full table.
    func restrictedDamerauLevenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        let width = b.count + 1
        var table = [Int](repeating: 0, count: (a.count + 1) * width)
        for i in 0...a.count { table[i * width] = i }
        for j in 0...b.count { table[j] = j }
        guard !a.isEmpty, !b.isEmpty else { return table[a.count * width + b.count] }
        for i in 1...a.count {
            for j in 1...b.count {
                var value = min(table[(i - 1) * width + j] + 1, table[i * width + j - 1] + 1,
                                table[(i - 1) * width + j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, table[(i - 2) * width + j - 2] + 1)
                }
                table[i * width + j] = value
            }
        }
        return table[a.count * width + b.count]
    }
}
