import ArgumentParser
import Foundation

/// Runs a peer benchmark script (Python) and returns the one JSON object it prints.
enum PeerProcess {
    static func run(python: String, script: String, arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("the peer \(script) failed (exit \(process.terminationStatus)); run it alone: \(python) \(script)")
        }
        return bytes
    }

    /// The peer's output as a JSON object.
    static func object(python: String, script: String, arguments: [String]) throws -> [String: Any] {
        let bytes = try run(python: python, script: script, arguments: arguments)
        guard let object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
            throw ValidationError("the peer \(script) printed no JSON object; run it alone: \(python) \(script)")
        }
        return object
    }
}
