"""Helpers every stage may use: files, the cache, progress, the terminal, hashes, JSON types."""
