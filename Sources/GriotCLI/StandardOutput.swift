import Foundation

/// Standard output and error for commands whose reader may go away: `griot ask --json | head`
/// closes the pipe after a few lines. SIGPIPE is ignored (see `Griot.main`), so a write to the
/// closed pipe fails with EPIPE instead of killing the process, and the failing write reports it
/// here instead of trapping, so the command can stop its work and exit quietly.
///
/// ```swift
/// guard StandardOutput.write(line) else { turn.stop(); … }
/// ```
enum StandardOutput {
    /// Writes all of `data`; false when the reader has gone away (or the output is otherwise unusable).
    static func write(_ data: Data) -> Bool {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
            return true
        } catch {
            return false
        }
    }

    /// Writes to standard error; a closed standard error is ignored (there is no one left to tell).
    static func writeError(_ data: Data) {
        try? FileHandle.standardError.write(contentsOf: data)
    }
}
