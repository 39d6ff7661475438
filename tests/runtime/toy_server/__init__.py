"""A tiny hand-written package shaped like a generated one, for the runtime's tests.

`schema.json` and `_static/` are what mcpgen would write beside server.py; server.py
calls `build_server(__package__, ...)` exactly as a generated server.py does.
"""
