"""Stage 1: reading a spec. YAML with source positions (`source`), the format's keys
(`format`), the typed spec model (`model`), and the small languages a spec embeds:
JSON Schema references, RFC 6570 URI templates and prompt templates."""
