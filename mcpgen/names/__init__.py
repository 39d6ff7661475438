"""Python names decided once."""
