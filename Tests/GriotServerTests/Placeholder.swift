// Replaced by the suite's first tests.
