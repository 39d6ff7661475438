"""Stage 5, resolve: the checked spec -> the resolved API (the IR), decided once.

Names, wire payloads, bundled schemas and wrapped outputs are decided here once, so that every
renderer reads the same facts and none reads the spec.
"""
