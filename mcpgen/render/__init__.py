"""Stage 8, render: the bound Python API -> the text of every generated file, in memory.

One renderer per artifact; nothing here reads the spec or touches the disk.
"""
