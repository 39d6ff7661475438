"""`mcpgen import --openapi`: an OpenAPI 3.0 or 3.1 document as a spec, one tool per operation.

`document` loads it (file or URL, JSON or YAML) and refuses what it cannot read; `refs`
follows its local `$ref`s; `schemas` turns its schemas into JSON Schema 2020-12 for one
direction (arguments or answers); `names` makes tool names; `operations` maps an
operation onto a tool and its `upstream`; `to_spec` puts the spec together.
"""
