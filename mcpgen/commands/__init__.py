"""Stage 12, commands: the command line: each command's flags over one service.

Each module is one command's flags and a thin runner over one service (`mcpgen.services`,
`mcpgen.importer`); `output` is how they all print (diagnostics, usage errors, the progress
line, exit codes, the shared flags). `mcpgen.cli` is the table of commands.
"""
