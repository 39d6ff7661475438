"""Stage 0, shared: what every stage may use: diagnostics, the helpers, the templates' folder.

`files` (safe creation, no writing through links), `cache` (the content-keyed disk cache and
the worker processes), `progress` (the progress line), `terminal` (text made safe for a
terminal), `hashing`, `collector` (the garbage collector paused during a build) and
`json_types` (the `Json` type and the helpers every JSON walker shares).
"""
