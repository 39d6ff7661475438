"""Stage 9, compare: two versions of a spec compared, for `mcpgen diff`; beside write.

What changed for clients on the wire (WIRE) and for the code written against the generated
package (CODE), each change with a severity.
"""
