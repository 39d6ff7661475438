"""Stage 1, read: YAML text -> the typed spec, with source positions.

YAML with source positions (`source`), the format's keys (`format`), the typed spec model
(`model`), and the small languages a spec embeds: JSON Schema references, RFC 6570 URI
templates and prompt templates.
"""
