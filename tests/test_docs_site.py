"""The docs site builds with `mkdocs build --strict` (a broken link, an anchor that is gone, a
page missing from the nav all fail it), and its reference pages, which an mkdocs hook writes
from the code (docs_hooks/reference.py), hold every command and flag, every spec key, every
setting and environment variable of a generated server and every error code: each is
enumerated here from the code itself and looked for in the page."""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers import ROOT, imported, write_spec
from mcp import Client

from mcpgen.cli import _parser, main
from mcpgen.names.module_names import CLIENT
from mcpgen.runtime.limits import Limits
from mcpgen.runtime.task_store import TaskLimits
from mcpgen.runtime.upstream import UpstreamSettings
from mcpgen.spec.format import spec_format_schema


def load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference_hook", ROOT / "docs_hooks" / "reference.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOK = load_hook()


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return dict(HOOK.generated_pages())


def flags(parser: argparse.ArgumentParser) -> list[str]:
    return [flag for action in parser._actions for flag in action.option_strings if flag not in ("-h", "--help")]


def rows(page: str) -> list[str]:
    return [line for line in page.splitlines() if line.startswith("| `")]


# --- the site ------------------------------------------------------------------------------------


@pytest.mark.slow  # mkdocs builds the whole site (about 4 s)
def test_the_site_builds_with_strict_warnings(tmp_path: Path) -> None:
    site = tmp_path / "site"
    environment = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    took = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    for page in HOOK.PAGES:
        built = site / page.removesuffix(".md") / "index.html"
        assert built.is_file(), f"{page} was not built"
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--allow-outside-project" in cli and "--max-bytes" in cli
    print(f"mkdocs build --strict: {took:.1f} s")


def test_the_nav_names_every_page_and_only_pages_that_exist() -> None:
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def walk(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [page for item in node for page in walk(item)]
        return [page for value in node.values() for page in walk(value)]

    listed = walk(config["nav"])
    committed = {path.relative_to(ROOT / "docs").as_posix() for path in (ROOT / "docs").rglob("*.md")}
    assert sorted(listed) == sorted(committed | set(HOOK.PAGES)), "mkdocs.yml's nav and docs/ disagree"
    assert not set(HOOK.PAGES) & committed, "a generated page is committed under docs/: it would drift"


@pytest.mark.slow  # the pages in a fresh interpreter
def test_the_generated_pages_are_the_same_bytes_every_time() -> None:
    program = (
        "import hashlib, importlib.util, sys; "
        f"spec = importlib.util.spec_from_file_location('hook', {str(ROOT / 'docs_hooks' / 'reference.py')!r}); "
        "hook = importlib.util.module_from_spec(spec); spec.loader.exec_module(hook); "
        "pages = hook.generated_pages(); "
        "print(hashlib.sha256(repr(sorted(pages.items())).encode()).hexdigest())"
    )
    # Another hash seed and terminal width than this process's.
    environment = dict(os.environ, PYTHONHASHSEED="1", COLUMNS="40")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    here = hashlib.sha256(repr(sorted(HOOK.generated_pages().items())).encode()).hexdigest()
    assert done.stdout.strip() == here


# --- the reference holds everything the code has ----------------------------------------------------


def test_every_command_and_flag_is_in_the_cli_reference(pages: dict[str, str]) -> None:
    page = pages["reference/cli.md"]
    [commands] = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert commands.choices, "no commands"
    for name, parser in commands.choices.items():
        section = page[page.index(f"## `{name}`") :]
        section = section[: section.index("\n## ")] if "\n## " in section else section
        for flag in flags(parser):
            assert f"`{flag}`" in section, f"mcpgen {name} {flag} is missing from reference/cli.md"
        for action in parser._actions:
            if not action.option_strings:
                assert f"| `{action.metavar or action.dest}` | positional" in section, f"mcpgen {name}: {action.dest}"


def test_every_flag_of_a_generated_server_is_in_the_server_reference(pages: dict[str, str]) -> None:
    page = pages["reference/server.md"]
    table = page[page.index("## Command line") : page.index("## `Limits`")]
    found = flags(HOOK.server_parser())
    assert "--http" in found and "--redis" in found and "--introspection" in found
    for flag in found:
        assert f"| `{flag}` |" in table, f"the server's {flag} is missing from reference/server.md"


@pytest.mark.parametrize("settings", [Limits, TaskLimits, UpstreamSettings], ids=lambda cls: cls.__name__)
def test_every_setting_is_in_the_server_reference(pages: dict[str, str], settings: type) -> None:
    page = pages["reference/server.md"]
    section = page[page.index(f"## `{settings.__name__}`") :]
    section = section[: section.index("\n## ", 1)]
    for field in dataclasses.fields(settings):
        assert f"| `{field.name}` |" in section, f"{settings.__name__}.{field.name} is missing from reference/server.md"


def test_a_setting_its_docstring_does_not_explain_stops_the_build() -> None:
    @dataclasses.dataclass(frozen=True)
    class Settings:
        """What it bounds.

        - `explained`: seconds something may take.
        """

        explained: float = 1.0
        unexplained: int = 2

    with pytest.raises(HOOK.ReferenceError, match="Settings.unexplained"):
        HOOK.settings_table(Settings, per_field=True)


def test_every_environment_variable_the_runtime_reads_is_in_the_server_reference(pages: dict[str, str]) -> None:
    page = pages["reference/server.md"]
    runtime = (ROOT / "mcpgen" / "runtime").glob("*.py")
    read = set()
    for path in runtime:
        read |= set(re.findall(r"environ(?:ment)?\.get\(\s*\"([A-Z0-9_]+)\"", path.read_text(encoding="utf-8")))
        read |= set(re.findall(r"^[A-Z_]*VARIABLE = \"([A-Z0-9_]+)\"", path.read_text(encoding="utf-8"), re.M))
    assert {"MCP_REQUEST_STATE_KEY", "MCP_REDIS_URL", "MCPGEN_INTROSPECTION", "MCP_UPSTREAM_URL"} <= read
    for variable in read:
        assert f"| `{variable}` |" in page, f"{variable} is missing from reference/server.md"
    assert "| `MCP_UPSTREAM_<SCHEME>` |" in page


def test_a_variable_or_an_error_code_nobody_described_stops_the_build() -> None:
    described = dict(HOOK.SERVER_VARIABLES)
    del described["MCP_REDIS_NAMESPACE"]
    with pytest.raises(HOOK.ReferenceError, match="MCP_REDIS_NAMESPACE"):
        HOOK._check_described("the runtime's environment variables", HOOK.runtime_variables(), described)
    HOOK._check_described("the runtime's environment variables", HOOK.runtime_variables(), HOOK.SERVER_VARIABLES)
    with pytest.raises(HOOK.ReferenceError, match="-32602"):
        HOOK.errors_page(described={code: text for code, text in HOOK.ERROR_CODES.items() if code != -32602})


def test_every_spec_key_is_in_the_spec_reference(pages: dict[str, str]) -> None:
    keys = {row.split("`")[1] for row in rows(pages["reference/spec-keys.md"])}
    last_segments = {re.split(r"[.\[\]]+", key.rstrip("]"))[-1] for key in keys}

    def names(schema: Any, inside_json_schema: bool = False) -> set[str]:
        """Every key the format declares, JSON Schemas' own keywords left out."""
        found: set[str] = set()
        if not isinstance(schema, dict):
            return found
        for name, sub in schema.get("properties", {}).items():
            found.add(name)
            if not (isinstance(sub, dict) and "JSON Schema" in str(sub.get("description", ""))):
                found |= names(sub)
        for key in ("additionalProperties", "items"):
            found |= names(schema.get(key))
        for key in ("oneOf", "anyOf"):
            for branch in schema.get(key, []):
                found |= names(branch)
        return found

    declared = names(spec_format_schema())
    assert {"mcpgen", "inputSchema", "taskSupport", "scopes_supported", "securitySchemes", "messages"} <= declared
    for name in declared:
        assert name in last_segments, f"spec key {name!r} is missing from reference/spec-keys.md"
    top = json.loads((ROOT / "mcpgen-spec.schema.json").read_text())["properties"]
    assert all(f"| `{key}` |" in pages["reference/spec-keys.md"] for key in top)


def test_every_error_code_the_runtime_uses_is_in_the_reference(pages: dict[str, str]) -> None:
    used = set()
    for path in (ROOT / "mcpgen" / "runtime").glob("*.py"):
        used |= {int(code) for code in re.findall(r"-32\d{3}\b", path.read_text(encoding="utf-8"))}
    assert {-32602, -32603, -32021, -32020} <= used
    for code in used:
        assert f"| `{code}` |" in pages["reference/errors.md"], f"{code} is missing from reference/errors.md"


def test_the_renamed_keywords_are_the_clients_own(pages: dict[str, str]) -> None:
    page = pages["reference/client-keywords.md"]
    for name in CLIENT.method_names:
        assert f"`{name}`" in page
    for name in ("uri", "value", "result", "arguments", "reference"):
        assert name in CLIENT.method_names and f"`{name}` is `{name}_`" in page


def test_the_readme_links_to_pages_that_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert "docs/tutorial.md" in local and "docs/how-to/deployment.md" in local
    for link in local:
        assert (ROOT / link).exists(), f"the README links to {link}, which does not exist"
    assert len(readme.splitlines()) <= 300, "the README is a front door: at most 300 lines"


RENAMED_SPEC = """\
mcpgen: 1
server: {name: renamed, version: "1"}
tools:
  fetch:
    inputSchema:
      type: object
      properties:
        uri: {type: string}
        uri_: {type: string}
        value: {type: integer}
        result: {type: boolean}
        arguments: {type: string}
        reference: {type: string}
        plain: {type: string}
      required: [uri]
    outputSchema:
      type: object
      properties: {echo: {type: object}}
      required: [echo]
"""


@pytest.mark.slow  # builds with the real generator
@pytest.mark.anyio
async def test_the_renamed_keywords_are_what_the_reference_says(tmp_path: Path) -> None:
    """The page's examples, on a built client: each name the client binds gets a trailing
    underscore (`uri` beside a property `uri_` gets two), and the wire keeps the spec's names."""
    import inspect

    assert main(["build", str(write_spec(tmp_path, RENAMED_SPEC))]) == 0
    with imported("renamed", tmp_path) as package:
        keywords = list(inspect.signature(package.RenamedClient.fetch).parameters)
        assert keywords == ["self", "uri__", "uri_", "value_", "result_", "arguments_", "reference_", "plain", "on_progress"]

        class Echo(package.Handlers):  # type: ignore[misc, name-defined]
            async def fetch(self, args, ctx):  # type: ignore[no-untyped-def]
                return {"echo": args.model_dump(mode="json", by_alias=True, exclude_unset=True)}

        async with package.RenamedClient(Client(package.create_server(Echo()))) as client:
            result = await client.fetch(uri__="https://example.com", value_=1, reference_="r")
    assert result.echo == {"uri": "https://example.com", "value": 1, "reference": "r"}
