# Jinja2 templates for generated packages; installed as mcpgen.templates.
