"""mcpgen: compile a YAML contract into a typed MCP server package."""

__version__ = "0.1.0"

# The version of the spec format this generator reads (the spec's `mcpgen:` key).
FORMAT_VERSION = 1
