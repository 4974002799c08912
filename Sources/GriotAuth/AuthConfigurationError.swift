/// A setting of bearer-token auth that cannot work, found when the server starts (or when a
/// token is minted without a secret). The message names the variable and says what to set.
///
/// ```swift
/// do { configuration = try AuthConfiguration(environment: ProcessInfo.processInfo.environment) }
/// catch { print("griot: \(error)"); exit(2) }
/// ```
public struct AuthConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable at fault, when there is one (`GRIOT_JWKS_FILE`).
    public var variable: String?
    public var message: String

    public init(_ message: String, variable: String? = nil) {
        self.message = message
        self.variable = variable
    }

    public var description: String { message }
}
