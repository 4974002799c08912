// Placeholder: the local moderation classifier lands with its own branch.
