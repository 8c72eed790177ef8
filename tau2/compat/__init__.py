"""Task files: shared JSON-file handling with one-line errors, and the τ²-bench task format."""
