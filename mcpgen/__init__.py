"""mcpgen: compile a YAML contract into a typed MCP server package."""

__version__ = "0.1.0"

# The version of the spec format this generator reads (the spec's `mcpgen:` key).
FORMAT_VERSION = 1

# What every generated package needs at run time (pyproject.toml installs them with mcpgen;
# tests/test_layout.py keeps the two lists equal). SCHEMA.md and the manifest state them.
RUNTIME_REQUIREMENTS = ("mcp==2.3.*", "jsonschema-rs==0.61.*")
