import Foundation
import Synchronization

/// A progress bar on standard error, drawn only on a terminal and only once a run has taken
/// more than a second, so quick runs and pipes stay quiet.
final class ProgressBar: Sendable {
    private let label: String
    private let started = Date()
    private let drawn = Mutex(false)

    init(label: String) {
        self.label = label
    }

    @Sendable func update(_ done: Int, _ total: Int) {
        guard Terminal.standardErrorIsTerminal, total > 0, Date().timeIntervalSince(started) > 1 else { return }
        let width = 30
        let filled = width * done / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\r\(label) \(bar) \(done)/\(total) (\(100 * done / total)%)"
        StandardOutput.writeError(Data(line.utf8))
        drawn.withLock { $0 = true }
    }

    func finish() {
        if drawn.withLock({ $0 }) { StandardOutput.writeError(Data("\n".utf8)) }
    }
}
