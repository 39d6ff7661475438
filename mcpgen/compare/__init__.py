"""Comparing two versions of a spec: what changed for clients on the wire (WIRE) and for the
code written against the generated package (CODE), each change with a severity."""
