// Placeholder: the groundedness scorer and the copyright check land with their own branch.
