"""Stage 5: putting a rendered package on disk, atomically, without touching the user's files."""
