"""Stage 3: the resolved API. Names, wire payloads, bundled schemas and wrapped outputs are
decided here once, so that every renderer reads the same facts and none reads the spec."""
