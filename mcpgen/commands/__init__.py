"""The commands: each its flags and a thin runner over one service."""
