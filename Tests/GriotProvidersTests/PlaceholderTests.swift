// Replaced by the providers' tests.
