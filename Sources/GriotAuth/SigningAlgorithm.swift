/// The token signature algorithms Griot accepts, as named in a JWT header's `alg`.
enum SigningAlgorithm: String, Sendable, CaseIterable {
    case hs256 = "HS256"
    case rs256 = "RS256"
    case es256 = "ES256"
}
