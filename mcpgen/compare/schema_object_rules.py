"""Schema keywords that shape an object: its required names, its properties, its extras.

`ObjectRules` compares `required`, `properties` (a property present on both sides is walked
as a subschema; one added or removed is reported together with its `required` entry, as a
single change) and `additionalProperties` (closed, a schema, or open). Whether a removed
property breaks depends on what now applies to a value sent under its name: nothing,
`false`, or the `additionalProperties` schema.
"""

from __future__ import annotations

from mcpgen.compare.keywords import EXTRAS_TEXT, extras, names
from mcpgen.compare.schema_nodes import Node
from mcpgen.compare.schema_walk import SchemaWalk
from mcpgen.utils.json_types import as_mapping


class ObjectRules(SchemaWalk):
    """The object keywords, compared name by name."""

    def _required(self, old: Node, new: Node) -> None:
        before, after = names(old.schema.get("required")), names(new.schema.get("required"))
        # A property added or removed together with its `required` entry is one change,
        # reported by `_properties`.
        declared_before, declared_after = as_mapping(old.schema.get("properties")), as_mapping(new.schema.get("properties"))
        for name in after:
            if name not in before and not (name in declared_after and name not in declared_before):
                self.report(
                    "WIRE/required-added",
                    old,
                    new,
                    "required",
                    f"'{name}' is now required",
                    narrows=True,
                    widens=False,
                    sends="clients that omit it are rejected",
                )
        for name in before:
            if name not in after and not (name in declared_before and name not in declared_after):
                self.report(
                    "WIRE/required-removed",
                    old,
                    new,
                    "required",
                    f"'{name}' is no longer required",
                    narrows=False,
                    widens=True,
                    receives="clients may now receive objects without it",
                )

    def _properties(self, old: Node, new: Node) -> None:
        before, after = as_mapping(old.schema.get("properties")), as_mapping(new.schema.get("properties"))
        for name, schema in after.items():
            if name in before:
                self.compare(old.child(before[name], "properties", name), new.child(schema, "properties", name))
        old_extras = extras(old.schema)
        new_extras = extras(new.schema)
        required_before, required_after = names(old.schema.get("required")), names(new.schema.get("required"))
        for name in before:
            if name in after:
                continue
            # What now applies to a value sent under that name: nothing, `false`, or a schema.
            was_required = name in required_before and name not in required_after
            self.report(
                "WIRE/property-removed",
                old.child(before[name], "properties", name),
                new.child(None, "properties", name),
                None,
                f"property '{name}' removed" + (" (it was required)" if was_required else ""),
                narrows=True if new_extras == "closed" else None if new_extras == "schema" else False,
                widens=new_extras != "closed",
                sends="clients that send it are rejected (additionalProperties is false)",
                receives="clients that read it may get nothing, or a value of any shape",
                removed=True,
                safe=(
                    "clients that still send it are not rejected: it is an undeclared property now"
                    if self.variance == "input"
                    else None
                ),
            )
        for name, schema in after.items():
            if name in before:
                continue
            required = name in required_after and name not in required_before
            if required and self.variance == "input":
                self.report(
                    "WIRE/required-added",
                    old.child(None, "properties", name),
                    new.child(schema, "properties", name),
                    None,
                    f"property '{name}' added, and required",
                    narrows=True,
                    widens=False,
                    sends="clients that omit it are rejected",
                )
                continue
            # New optional properties are not breaking, as in oasdiff, though an open object
            # accepted any value under that name before. Where undeclared properties had a
            # schema, the value under this name had to match it: the new schema is compared
            # with that one. Pattern properties may have held the name too: taken as widening.
            patterns = as_mapping(old.schema.get("patternProperties"))
            if old_extras == "schema" and not patterns:
                extra = old.schema["additionalProperties"]
                self.compare(old.child(extra, "additionalProperties"), new.child(schema, "properties", name))
            self.report(
                "WIRE/property-added",
                old.child(None, "properties", name),
                new.child(schema, "properties", name),
                None,
                f"property '{name}' added" + (", and required" if required else ""),
                narrows=False,
                widens=old_extras == "closed" or bool(patterns),
                receives="clients may now receive a property the old schema closed out",
                safe="clients may leave it out" if self.variance == "input" else "clients may ignore it",
            )

    def _additional(self, old: Node, new: Node) -> None:
        before, after = extras(old.schema), extras(new.schema)
        keyword = "additionalProperties"
        if before == after == "schema":
            self.compare(old.child(old.schema[keyword], keyword), new.child(new.schema[keyword], keyword))
            return
        if before == after:
            return
        order = {"closed": 0, "schema": 1, "open": 2}
        narrows = order[after] < order[before]
        self.report(
            "WIRE/additional-properties-narrowed" if narrows else "WIRE/additional-properties-widened",
            old,
            new,
            keyword,
            f"undeclared properties: {EXTRAS_TEXT[before]} -> {EXTRAS_TEXT[after]}",
            narrows=narrows,
            widens=not narrows,
            sends="clients that send undeclared properties are rejected",
            receives="clients may now receive undeclared properties",
        )
