"""The binding stage's `PythonApi`: types as data, its JSON, and the rebuild report it feeds."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import MINIMAL, write_spec

from mcpgen.bind.api import PythonApi
from mcpgen.bind.types import TypeRef
from mcpgen.names.module_names import Import
from mcpgen.services.pipeline import Build, build, write
from mcpgen.write.manifest import MANIFEST


def test_a_type_is_narrowed_on_its_members() -> None:
    optional = TypeRef(("list[str]", "None"), (Import("typing", "Literal"),))
    assert optional.without_none() == TypeRef(("list[str]",), optional.imports)
    assert TypeRef(("None",)).without_none().text == "None"  # nothing left: kept
    assert TypeRef(("int", "float", "None")).numeric_tower().text == "float | None"
    assert TypeRef(("int", "str")).numeric_tower().text == "int | str"


def test_the_python_api_survives_its_json_compact_and_sorted(gift_server_build: Build) -> None:
    python = gift_server_build.python
    assert python is not None
    text = python.to_json()
    assert text == json.dumps(json.loads(text), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    back = PythonApi.from_json(text)
    assert back.to_json() == text
    assert back.handlers == python.handlers and back.client == python.client and back.bindings == python.bindings
    assert json.loads(text)["exports"] == sorted(python.exports)


def test_the_signatures_are_printed_from_the_bound_methods(gift_server_build: Build) -> None:
    result = gift_server_build
    assert result.python is not None
    read_gift = result.python.client_method("resources/gift")
    assert read_gift.signature == "async def read_gift(self, *, id: str) -> Gift:"
    handlers = result.files["handlers.py"].decode()
    for method in result.python.handlers:
        assert f"async def {method.name}(" in handlers
    # No identity map: the variable `id` is the keyword `id`.
    assert result.python.binding("templates", "gift").expression == (
        "TemplateBinding(handlers.read_gift, content_model=lambda: models.GiftContent)"
    )


def test_the_manifest_keeps_the_handlers_for_the_next_rebuild(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, MINIMAL)
    first = build(spec)
    write(first, first.plan())
    kept = json.loads((tmp_path / "demo" / MANIFEST).read_text())["api"]
    assert [method[1] for method in kept["handlers"]] == ["echo"]
    write_spec(tmp_path, MINIMAL + "  shout:\n    inputSchema: {type: object}\n")
    second = build(spec)
    written = write(second, second.plan())
    assert written.methods_to_add == ["async def shout(self, args: ShoutInput, ctx: Context) -> ToolContent"]
    assert written.imports == ["from demo import Context, ShoutInput, ToolContent"]
    write_spec(tmp_path, MINIMAL)
    third = build(spec)
    assert write(third, third.plan()).methods_to_remove == ["shout"]


def test_a_manifest_without_the_api_reports_nothing(tmp_path: Path) -> None:
    """A package an older mcpgen built: its manifest has no "api", so nothing is known to
    have changed (as before a first build)."""
    spec = write_spec(tmp_path, MINIMAL)
    first = build(spec)
    write(first, first.plan())
    manifest = tmp_path / "demo" / MANIFEST
    document = json.loads(manifest.read_text())
    del document["api"]
    manifest.write_text(json.dumps(document, indent=2) + "\n")
    write_spec(tmp_path, MINIMAL + "  shout:\n    inputSchema: {type: object}\n")
    second = build(spec)
    written = write(second, second.plan())
    assert written.methods_to_add == [] and written.methods_to_remove == [] and written.imports == []
    assert "shout" in (tmp_path / "demo" / "handlers.py").read_text()
