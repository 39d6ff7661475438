"""Stage 2, name: every Python name a spec yields, decided once.

`naming` turns spec names into Python ones (modules, classes, methods, parameters);
`module_names` declares what each generated module imports and defines beside the spec's
names, and `Scope`, the one way a name from the spec yields to them. Checks that the names
work live with the other checks (`mcpgen.check.names`).
"""
