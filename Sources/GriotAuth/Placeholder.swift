// Replaced by the module's first type.
enum GriotAuthPlaceholder {}
