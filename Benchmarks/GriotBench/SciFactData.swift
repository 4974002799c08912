import Foundation

/// The BEIR SciFact files, and BEIR's metrics over them.
struct SciFactData {
    struct Document {
        var id: String
        var title: String
        var text: String
    }

    var documents: [Document] = []
    var queries: [String: String] = [:]
    /// query id ➝ document id ➝ graded relevance
    var qrels: [String: [String: Int]] = [:]

    init(folder: String) throws {
        for object in try Self.jsonLines(folder + "/corpus.jsonl") {
            documents.append(Document(id: object["_id"] as? String ?? "", title: object["title"] as? String ?? "", text: object["text"] as? String ?? ""))
        }
        for object in try Self.jsonLines(folder + "/queries.jsonl") {
            queries[object["_id"] as? String ?? ""] = object["text"] as? String ?? ""
        }
        let qrelsText = try String(contentsOfFile: folder + "/qrels/test.tsv", encoding: .utf8)
        for line in qrelsText.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t")
            guard fields.count == 3, let score = Int(fields[2]) else { continue }
            qrels[String(fields[0]), default: [:]][String(fields[1])] = score
        }
    }

    /// The test queries in a fixed order.
    var testQueries: [(String, String)] {
        qrels.keys.sorted { Int($0) ?? 0 < Int($1) ?? 0 }.compactMap { id in queries[id].map { (id, $0) } }
    }

    static func jsonLines(_ path: String) throws -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return try data.split(separator: UInt8(ascii: "\n")).map {
            try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] ?? [:]
        }
    }

    /// nDCG@10 and Recall@100 as BEIR computes them (pytrec_eval, linear gain, a retrieved
    /// document whose id equals the query id ignored), averaged over the test queries.
    func evaluate(_ rankings: [String: [String]]) -> (ndcg10: Double, recall100: Double) {
        var ndcgTotal = 0.0
        var recallTotal = 0.0
        for (queryID, relevant) in qrels {
            let ranking = (rankings[queryID] ?? []).filter { $0 != queryID }
            var dcg = 0.0
            for (rank, document) in ranking.prefix(10).enumerated() {
                dcg += Double(relevant[document] ?? 0) / log2(Double(rank) + 2)
            }
            let ideal = relevant.values.sorted(by: >).prefix(10).enumerated().reduce(0.0) {
                $0 + Double($1.element) / log2(Double($1.offset) + 2)
            }
            ndcgTotal += ideal > 0 ? dcg / ideal : 0
            let positives = relevant.filter { $0.value > 0 }
            let found = ranking.prefix(100).filter { positives[$0] != nil }.count
            recallTotal += positives.isEmpty ? 0 : Double(found) / Double(positives.count)
        }
        let count = Double(qrels.count)
        return (ndcgTotal / count, recallTotal / count)
    }
}
