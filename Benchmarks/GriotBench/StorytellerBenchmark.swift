import ArgumentParser
import CJPEG
import Foundation
import GriotArchive
import GriotChat
import GriotImages
import GriotPrompts
import GriotSearch
import GriotServer
import GriotStore
import NIOCore
import NIOPosix

/// What ten 2 MB drawings add to a storyteller turn (issue 39), through the real path: a child and
/// her drawings stored the way the routes store them (stripped, kept by content hash, recorded),
/// the storyteller declared by `StorytellerSetup` with its model at a loopback OpenAI-compatible
/// stub (`GRIOT_STORYTELLER_BASE_URL`), and each turn started with the fields the story routes give.
///
/// 1. Overhead before the model: from `engine.startTurn` to the stub having read the whole request
///    (headers and the full body, ten data URLs included), for the first story (each drawing's
///    1,024 px model copy made in the turn) and for later ones (the copies kept), against the
///    peer in the same run: the same storyteller turn with no drawings.
/// 2. Memory: the process's peak RSS (VmHWM, reset through /proc/self/clear_refs) while 20, then
///    40, generations with ten drawings each are in flight at once (the stub holds each reply for
///    `hold` seconds), against 20 text-only storyteller turns; one run per invocation.
struct StorytellerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyteller",
        abstract: "Storyteller overhead before the model (10 drawings of 2 MB, cold and warm) and peak RSS of concurrent generations, against text-only turns.")

    @Option(help: "The prompts folder.")
    var prompts = "prompts"

    @Option(help: "Drawings a story is told from.")
    var drawings = 10

    @Option(help: "Bytes each stored drawing should have (a phone photo of a drawing).")
    var drawingBytes = 2_000_000

    @Option(help: "Counted rounds of each overhead measurement (one more, uncounted, warms the path).")
    var rounds = 20

    /// Each run is `kind:count`: `text` (turns without drawings, the peer), `warm` (ten drawings,
    /// their model copies kept) or `cold` (ten drawings, the copies made in the turns). Freed memory
    /// stays with the process and is reused by the next run, hiding its growth: for figures, give
    /// one run per invocation (`--no-overhead --memory warm:40`).
    @Option(help: "Memory runs, comma-separated kind:count (text, warm or cold); one per invocation for clean figures.")
    var memory = "text:20,warm:20,warm:40"

    @Flag(inversion: .prefixedNo, help: "Measure the overhead before the model.")
    var overhead = true

    @Option(help: "Seconds the stub holds each reply open in the memory runs.")
    var hold = 2.0

    @Option(help: "Overhead target in milliseconds (the ratio is reported against it).")
    var targetMs = 100.0

    func validate() throws {
        guard (1...10).contains(drawings), rounds >= 1, hold > 0, memoryRuns != nil, drawingBytes >= 100_000 else {
            throw ValidationError("--drawings 1…10, --rounds ≥ 1, --hold > 0, --memory like text:20,warm:40 (kinds text, warm, cold), --drawing-bytes ≥ 100000")
        }
    }

    var memoryRuns: [(kind: String, count: Int)]? {
        var runs: [(kind: String, count: Int)] = []
        for item in memory.split(separator: ",") {
            let parts = item.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, ["text", "warm", "cold"].contains(parts[0]), let count = Int(parts[1]), count > 0 else { return nil }
            runs.append((parts[0], count))
        }
        return runs
    }

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-bench-storyteller-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try SQLiteStoryStore(path: folder.appendingPathComponent("griot.sqlite").path).storage()
        guard let store = storage.chats as? any StorytellerStore else { throw ValidationError("this storage keeps no storyteller records") }
        let blobs = DrawingBlobStore(folder: folder.appendingPathComponent("drawings", isDirectory: true))

        // 1. The family: a parent, a child, and her drawings stored as POST /drawings stores them.
        let parentID = "u-bench-parent"
        let child = try await store.addChild(ChildRecord(parentID: parentID, name: "Zofia Łukasiewicz", age: 5))
        let started = ContinuousClock.now
        let photos = try DrawingPhotos.make(count: drawings, bytes: drawingBytes)
        var records: [DrawingRecord] = []
        for (index, photo) in photos.enumerated() {
            // As POST /api/storyteller/drawings does: stripped, thumbnail and model copy made, stored.
            let drawing = try DrawingIntake.prepare(photo)
            let hash = try drawing.store(in: blobs)
            let caption = DrawingPhotos.captions[index % DrawingPhotos.captions.count]
            guard let record = try await store.addDrawing(drawing.record(hash: hash, parentID: parentID, childID: child.id,
                                                                         filename: "drawing-\(index + 1).jpg", caption: caption)) else {
                throw ValidationError("the drawing was not stored")
            }
            records.append(record)
        }
        // The stage a first story adds, per drawing: its 1,024 px model copy (decoded at 1/2 scale
        // by libjpeg, box-downscaled, encoded), made here outside any turn.
        var copies: [Double] = []
        for photo in photos {
            let start = ContinuousClock.now
            _ = try DrawingImage.thumbnail(photo, maxSide: 1_024)
            copies.append(Self.seconds(ContinuousClock.now - start) * 1000)
        }
        let sizes = records.map { Double($0.byteCount) / 1e6 }
        print(String(format: "storyteller: %d drawings of %d×%d JPEG, %.2f–%.2f MB each (%.1f MB in all), stored in %.1f s",
                     records.count, records[0].width, records[0].height, sizes.min()!, sizes.max()!, sizes.reduce(0, +), Self.seconds(ContinuousClock.now - started)))

        // The stub's replies: a valid story that places and names every drawing, or (no drawings)
        // one without placements, so that no turn asks the model twice.
        let withDrawings = Self.story(drawings: records)
        let textOnly = Self.story(drawings: [])
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let registry = try PromptRegistry.load(folder: URL(fileURLWithPath: prompts))
        let bench = Bench(store: store, storage: storage, blobs: blobs, registry: registry, parentID: parentID, child: child, drawings: records)

        let copy = Self.percentiles(copies)
        print(String(format: "  one drawing's model copy (DrawingImage.thumbnail, maxSide 1024): p50 %.1f ms, p95 %.1f ms", copy.p50, copy.p95))
        if overhead { try await measureOverhead(bench: bench, withDrawings: withDrawings, textOnly: textOnly, group: group) }
        if let runs = memoryRuns, !runs.isEmpty {
            try await measureMemory(bench: bench, runs: runs, withDrawings: withDrawings, textOnly: textOnly, group: group, originals: sizes.reduce(0, +))
        }
        try await group.shutdownGracefully()
    }

    /// 2. Overhead before the model: a stub that answers at once.
    private func measureOverhead(bench: Bench, withDrawings: [String], textOnly: [String], group: any EventLoopGroup) async throws {
        let records = bench.drawings
        let peerReplies = Dictionary(uniqueKeysWithValues: (0...rounds).map { ("\(PacedModelStub.markerPrefix)peer-\($0)", textOnly) })
        let quick = try await PacedModelStub.start(pieces: withDrawings, pace: 0.0005, replies: peerReplies, group: group)
        let quickEngine = try await bench.engine(baseURL: quick.baseURL)
        print("stub model on \(quick.baseURL); overhead = engine.startTurn → the stub has read the whole request (head and body)")
        var overhead: [String: [Double]] = [:]
        var passages: [String: [Double]] = [:]
        var requestBytes: [String: Int] = [:]
        for round in 0...rounds {
            for kind in ["cold", "warm", "peer"] {
                if kind == "cold" { bench.forgetModelCopies() }
                let marker = "\(PacedModelStub.markerPrefix)\(kind)-\(round)"
                let took = try await bench.overhead(engine: quickEngine, stub: quick, marker: marker, drawings: kind != "peer", textOnly: textOnly)
                if round > 0 { overhead[kind, default: []].append(took) }
            }
            // The passage source alone (reading the records, the files and making the copies),
            // the stage the drawings add, timed outside the turn.
            for kind in ["cold", "warm"] {
                if kind == "cold" { bench.forgetModelCopies() }
                let (took, bytes) = try await bench.passages(engine: quickEngine)
                if round > 0 { passages[kind, default: []].append(took) }
                requestBytes[kind] = bytes
            }
        }
        let peer = Self.percentiles(overhead["peer"]!)
        print(String(format: "  images sent: %.2f MB of data URLs a turn (%d drawings)", Double(requestBytes["warm"] ?? 0) / 1e6, records.count))
        for (kind, label) in [("cold", "10 drawings, first story (copies made)"), ("warm", "10 drawings, copies kept"), ("peer", "no drawings (peer)")] {
            let figures = Self.percentiles(overhead[kind]!)
            print(String(format: "  %-40@ p50 %7.1f ms  p95 %7.1f ms   ×%.1f p50 / ×%.1f p95 of the peer, p95 %.2f of the %.0f ms target",
                         label as NSString, figures.p50, figures.p95, figures.p50 / peer.p50, figures.p95 / peer.p95, figures.p95 / targetMs, targetMs))
        }
        for kind in ["cold", "warm"] {
            let figures = Self.percentiles(passages[kind]!)
            print(String(format: "    of which the passage source alone (%@): p50 %7.1f ms  p95 %7.1f ms", kind as NSString, figures.p50, figures.p95))
        }
        try await quick.stop()
    }

    /// 3. Memory: replies held open so that every generation is in flight at once; each run's
    /// peak RSS (VmHWM, reset first) less the RSS before it.
    private func measureMemory(bench: Bench, runs: [(kind: String, count: Int)], withDrawings: [String], textOnly: [String],
                               group: any EventLoopGroup, originals: Double) async throws {
        let pieces = max(4, Int(hold / 0.1))
        let heldStory = Self.pieces(of: withDrawings.joined(), count: pieces)
        let heldText = Self.pieces(of: textOnly.joined(), count: pieces)
        var replies: [String: [String]] = [:]
        for (index, run) in runs.enumerated() where run.kind == "text" {
            for turn in 0..<run.count { replies["\(PacedModelStub.markerPrefix)text\(index)-\(turn)"] = heldText }
        }
        let slow = try await PacedModelStub.start(pieces: heldStory, pace: hold / Double(pieces), replies: replies, group: group)
        let slowEngine = try await bench.engine(baseURL: slow.baseURL)
        let resets = ResidentMemory.resetPeak()
        print("memory: replies held \(ServeLoadBenchmark.format(hold)) s; peak RSS (VmHWM) \(resets ? "reset through /proc/self/clear_refs before each run" : "NOT resettable here: each figure is the peak so far")"
              + (runs.count > 1 ? "; several runs in one process: later runs reuse the memory earlier ones freed (give one run per invocation)" : ""))
        for (index, run) in runs.enumerated() {
            // Warm: the copies are made once beforehand, as by an earlier story; cold: none kept.
            bench.forgetModelCopies()
            if run.kind == "warm" { _ = try await bench.passages(engine: slowEngine) }
            let baseline = ResidentMemory.current()
            _ = ResidentMemory.resetPeak()
            slow.resetPeak()
            let started = ContinuousClock.now
            let failures = try await bench.concurrent(engine: slowEngine, count: run.count, drawings: run.kind != "text", textOnly: textOnly,
                                                      round: run.kind == "text" ? "text\(index)" : "\(run.kind)\(index)")
            let peak = ResidentMemory.peak()
            let growth = Double(peak - baseline) / 1e6
            let label = run.kind == "text" ? "\(run.count) text-only turns (peer)" : "\(run.count) generations × \(bench.drawings.count) drawings" + (run.kind == "cold" ? ", copies made" : ", copies kept")
            let failed = failures == 0 ? "" : ", \(failures) failed"
            print(String(format: "  %-44@ RSS before %6.1f MB  peak %6.1f MB  growth %6.1f MB = %5.2f MB a generation  (%d at the stub at once, %.1f s%@)",
                         label as NSString, Double(baseline) / 1e6, Double(peak) / 1e6, growth, growth / Double(run.count), slow.peakActiveReplies,
                         Self.seconds(ContinuousClock.now - started), failed as NSString))
        }
        print(String(format: "  for scale: the originals of one generation are %.1f MB, its model copies %.1f MB (%.1f MB as data URLs)",
                     originals, Double(bench.modelCopyBytes()) / 1e6, Double(bench.modelCopyBytes()) * 4 / 3 / 1e6))
        try await slow.stop()
    }

    /// A story in the storyteller's reply format that places every drawing after a paragraph
    /// naming its caption, cut into a few pieces to stream.
    static func story(drawings: [DrawingRecord]) -> [String] {
        var paragraphs = ["Once upon a time, in a quiet village by the hills, a girl went out to look at the evening sky."]
        var placements: [[String: Any]] = []
        for drawing in drawings {
            paragraphs.append("Along the path she found \(drawing.caption ?? "a drawing"), and it smiled at her and walked beside her for a while.")
            placements.append(["drawing_id": drawing.id, "after_paragraph": paragraphs.count])
        }
        paragraphs.append("Then the stars came out, everyone went home, and she fell asleep warm and happy.")
        let object: [String: Any] = ["story_text": paragraphs.joined(separator: "\n\n"), "image_placements": placements]
        let json = String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        return pieces(of: json, count: 8)
    }

    static func pieces(of text: String, count: Int) -> [String] {
        let characters = Array(text)
        let size = max(1, (characters.count + count - 1) / count)
        return stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min(characters.count, $0 + size)]) }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func percentiles(_ values: [Double]) -> (p50: Double, p95: Double) {
        let sorted = values.sorted()
        return (sorted[(sorted.count - 1) / 2], sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)])
    }
}

/// The benchmark's family, storage and drawings, and the turns it starts.
private struct Bench: Sendable {
    let store: any StorytellerStore
    let storage: Storage
    let blobs: DrawingBlobStore
    let registry: PromptRegistry
    let parentID: String
    let child: ChildRecord
    let drawings: [DrawingRecord]

    /// An engine whose storyteller is the one `StorytellerSetup` declares, its model at `baseURL`;
    /// the standard safety stages, as the service runs them.
    func engine(baseURL: String) async throws -> ChatEngine {
        let environment = ["GRIOT_STORYTELLER_BASE_URL": baseURL, "GRIOT_STORYTELLER_API_KEY": "bench-key", "GRIOT_STORYTELLER_MODEL": "stub-vision"]
        let storyteller = try await StorytellerSetup.declaration(chats: storage.chats, drawings: blobs.folder, environment: environment)
        return ChatEngine(archive: StoryArchive(storage: storage), chats: storage.chats, prompts: registry, provider: ExtractiveResponder(),
                          counters: .bytePair, safety: .standard(embedder: nil, environment: [:]), assistants: AssistantCatalog.builtIn.adding(storyteller))
    }

    /// A story's first chapter as `POST /api/storyteller/stories` starts it. The marker rides in
    /// the theme, which the prompt carries to the stub.
    func request(marker: String, drawings withDrawings: Bool) async throws -> TurnRequest {
        guard let story = try await store.createStory(BedtimeStoryRecord(parentID: parentID, childID: child.id, theme: marker)) else {
            throw ValidationError("the story was not created")
        }
        let ids = withDrawings ? drawings.map(\.id) : []
        var request = TurnRequest(assistant: "storyteller", message: "Tell a bedtime story from \(ids.count) new drawings, about: \(marker).",
                                  viewer: Viewer(userID: parentID))
        request.newThreadID = story.id
        request.userName = "Zofia"
        // StorytellerInput's fields (internal to GriotServer), as the route sets them.
        request.assistantInput = ["story_id": story.id, "child_id": child.id, "drawing_ids": ids.joined(separator: ","),
                                  "theme": marker, "child_name": "Zofia", "child_age": "5"]
        return request
    }

    /// Milliseconds from `startTurn` to the stub having read the request; the turn is run to its end.
    func overhead(engine: ChatEngine, stub: PacedModelStub, marker: String, drawings withDrawings: Bool, textOnly: [String]) async throws -> Double {
        let request = try await request(marker: marker, drawings: withDrawings)
        let start = NIODeadline.now().uptimeNanoseconds
        let turn = try await engine.startTurn(request)
        let failure = await Self.drain(turn)
        guard let record = stub.record(marker: marker) else {
            throw ValidationError("the stub never saw turn \(marker)" + (failure.map { ": \($0)" } ?? ""))
        }
        if let failure { throw ValidationError("turn \(marker) failed: \(failure)") }
        return Double(record.arrived - start) / 1e6
    }

    /// The storyteller's passage source alone, as the turn calls it: milliseconds, and the bytes
    /// of the images it gives.
    func passages(engine: ChatEngine) async throws -> (Double, Int) {
        guard case .source(let source) = engine.assistants.declaration(for: "storyteller").retrieval else {
            throw ValidationError("the storyteller has no passage source")
        }
        let request = try await request(marker: "passages", drawings: true)
        let start = ContinuousClock.now
        let context = try await source.passages(for: request)
        let took = StorytellerBenchmark.seconds(ContinuousClock.now - start) * 1000
        return (took, context.images.reduce(0) { $0 + $1.utf8.count })
    }

    /// Starts `count` turns at once and waits for them all; how many failed.
    @discardableResult
    func concurrent(engine: ChatEngine, count: Int, drawings withDrawings: Bool, textOnly: [String], round: String) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                let marker = "\(PacedModelStub.markerPrefix)\(round)-\(index)"
                let request = try await request(marker: marker, drawings: withDrawings)
                group.addTask {
                    let turn = try await engine.startTurn(request)
                    return await Self.drain(turn) == nil
                }
            }
            var failures = 0
            for try await ok in group where !ok { failures += 1 }
            return failures
        }
    }

    /// Reads a turn to its end; its failure, if it failed.
    static func drain(_ turn: ChatTurn) async -> String? {
        var failure: String?
        for await event in turn.events {
            if case .error(let error) = event { failure = "\(error.code): \(error.message)" }
        }
        await turn.finished()
        return failure
    }

    /// Removes the drawings' model copies, so the next turn makes them again (a first story).
    func forgetModelCopies() {
        for drawing in drawings {
            let hash = drawing.contentHash
            let file = blobs.folder.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent(String(hash.dropFirst(2).prefix(2)))
                .appendingPathComponent(hash + ".model.jpg")
            unlink(file.path)
        }
    }

    func modelCopyBytes() -> Int {
        drawings.reduce(0) { $0 + (blobs.variant($1.contentHash, name: "model")?.count ?? 0) }
    }
}

/// Photo-like JPEGs of a given size: smooth colour fields, strokes and sensor noise, encoded with
/// libjpeg-turbo at quality 90, the noise tuned until a picture weighs about `bytes`.
enum DrawingPhotos {
    static let width = 2_500
    static let height = 1_900
    static let captions = ["a purple dragon", "the lighthouse", "a giraffe with a scarf", "grandma's garden", "a rocket ship",
                           "the yellow submarine", "a sleepy owl", "the castle on the hill", "a rainbow kite", "a friendly whale"]

    static func make(count: Int, bytes: Int) throws -> [Data] {
        var noise = 24.0
        var photos: [Data] = []
        // The first picture sets the noise (a few tries, by the ratio of sizes); the others use it.
        for attempt in 0..<6 {
            let photo = try encode(seed: 1, noise: noise)
            photos = [photo]
            let ratio = Double(bytes) / Double(photo.count)
            if abs(ratio - 1) < 0.05 || attempt == 5 { break }
            noise = min(120, max(1, noise * pow(ratio, 1.6)))
        }
        for seed in 2...max(2, count) where photos.count < count {
            photos.append(try encode(seed: UInt64(seed), noise: noise))
        }
        return photos
    }

    static func encode(seed: UInt64, noise: Double) throws -> Data {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func random() -> Double {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Double(state % 1_000_000) / 1_000_000
        }
        let phase = random() * 6.28
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width), v = Double(y) / Double(height)
                // Paper, a few crayon fields, and the camera's grain.
                let field = sin(u * 9 + phase) * cos(v * 7 - phase) * 60
                let stroke = abs(sin((u + v) * 40 + phase)) < 0.08 ? -90.0 : 0
                let offset = (y * width + x) * 3
                for channel in 0..<3 {
                    let base = 200 + field * (channel == 0 ? 1 : channel == 1 ? -0.6 : 0.3) + stroke
                    rgb[offset + channel] = UInt8(max(0, min(255, base + (random() - 0.5) * noise)))
                }
            }
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = rgb.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { message in
                griot_jpeg_encode_rgb(pixels.baseAddress, UInt32(width), UInt32(height), 90, 0, 0, &output, &size, message.baseAddress, message.count)
            }
        }
        guard status == 0, let output else {
            throw ValidationError("libjpeg could not encode the drawing: " + message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        defer { free(output) }
        return Data(bytes: output, count: Int(size))
    }
}

/// The process's resident memory, from /proc/self/status (Linux).
enum ResidentMemory {
    static func current() -> Int { field("VmRSS:") }

    static func peak() -> Int { field("VmHWM:") }

    /// Sets the peak back to the current RSS ("5" to clear_refs); false where that is not allowed.
    static func resetPeak() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// A "kB" line of /proc/self/status, in bytes.
    static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? 0) * 1024
    }
}
