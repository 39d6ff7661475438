"""One service per command."""
