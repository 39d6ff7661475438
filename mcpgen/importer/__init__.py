"""Stage 11, import: `mcpgen import`: a server or an OpenAPI document -> a spec.

From a server's list answers (`from_server`: captured by `capture.py`, or listed live by
`live.py` through the counting transports of `transports.py`, within the bounds of
`bounds.py`; `to_spec.py` maps the listings onto the format's keys and says what it cannot
express, `shared.py` moves repeated `$defs` into shared definitions, `compare.py` checks the
built server's lists against the original's) or from an OpenAPI document (`from_openapi`, over
`openapi/`); `yaml_text.py` writes the spec as YAML for people.
"""
