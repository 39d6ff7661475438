"""The models stage."""
