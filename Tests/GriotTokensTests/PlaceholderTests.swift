// Replaced by the tokenizer's tests.
