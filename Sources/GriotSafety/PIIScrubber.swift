// Placeholder: the PII scrubber lands with its own branch.
