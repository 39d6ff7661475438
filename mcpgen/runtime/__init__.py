"""The runtime of a generated MCP server package.

mcpgen copies every module of this package verbatim into each package it generates,
as `<package>/_runtime/<module>.py`: validation, error mapping, result shaping,
pagination, notifications and serving live here once, so that the generated
server.py is only the spec's bindings. Edit these files in mcpgen (mcpgen/runtime),
never in a generated package: a rebuild overwrites them there.

Modules: `server` (build_server, GeneratedServer) wires the tables of `tools`,
`resources`, `prompts` and `completions` from the package's schema.json
(`package_data`); `serving` runs it (stdio, Streamable HTTP; `http_guard` checks
Host, Origin and bodies, `uvicorn_server` times out slow headers); `context` is what a
handler can do with its request; `content` builds content blocks; `limits` bounds
what handlers and clients may cost, `guard` calls handlers within them, `keys`
derives signing keys from the deployment's secret; `validation`, `pagination`,
`errors`, `encoding` and `log` are shared helpers; `client` is what a generated
typed client needs; `upstream` (with `upstream_requests`, `upstream_redirects` and
`upstream_names`) forwards tool calls to the HTTP API of a spec's `server.upstream`, with
`httpx2` (mcp's HTTP client), imported on the first call.

The modules import one another relatively and depend only on `mcp`, `mcp_types`,
`pydantic`, `jsonschema_rs`, `anyio` and the standard library (and `uvicorn`, in
`uvicorn_server`, which only `run --http` imports). `client` (what a
generated typed client needs) imports nothing of the server stack.
"""
