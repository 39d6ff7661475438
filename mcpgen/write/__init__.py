"""Stage 9, write: a rendered package on disk, atomically, with its manifest.

Without touching the user's files: the plan of what would change, the atomic swap, the
manifest and the generator's fingerprint.
"""
