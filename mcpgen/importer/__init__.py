"""`mcpgen import`: a server's list answers (captured, or listed live) turned into a spec.

`capture.py` reads a capture file (the shape of `tests/corpus/*.json`), `live.py` lists a
running server through the counting transports of `transports.py`, within the bounds of
`bounds.py` (time, bytes, pages), `to_spec.py` maps the listings onto the spec format's
keys and says what it cannot express, `shared.py` moves `$defs` that several schemas repeat
into the spec's shared definitions, and `yaml_text.py` writes the spec as YAML for people.
"""
