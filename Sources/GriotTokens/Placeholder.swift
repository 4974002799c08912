// Replaced by the byte-pair encoder.
enum GriotTokensPlaceholder {}
