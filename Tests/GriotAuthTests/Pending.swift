// The auth tests arrive with the auth branch.
