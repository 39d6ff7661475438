"""`mcpgen import`: a spec from what a server lists, served back JSON-equal once built.

The fast tests hold the parts: the YAML writer (every string and number loads back as it
was), the mapping onto the format (what it cannot hold is reported by name), shared
definitions (bundled back exactly as they were) and the command line's refusals. The slow
ones run it all: each corpus capture is imported, built, served and listed in both eras;
the built server is then imported again, live over stdio, page by page, and must give
the same spec, byte for byte; a server over Streamable HTTP is imported too.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import (
    CORPUS,
    EXAMPLE_APP,
    built_package,
    http_server,
    identical,
    run_mcpgen,
    server_listings,
    stub_implementation,
    tools_as_listed,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen.cli import main
from mcpgen.importer.shared import extract_shared_definitions
from mcpgen.importer.to_spec import spec_data
from mcpgen.importer.yaml_text import yaml_text
from mcpgen.spec.json_schema import bundle
from mcpgen.spec.source import load_yaml
from mcpgen.utils.json_types import canonical

# --- the YAML writer -------------------------------------------------------------------------

# Strings that YAML reads as something else, or that need care in a block: each must come back a string.
AWKWARD = [
    *"yes no on off y n Y N true True FALSE null Null NULL ~".split(),
    *"1 -1 +1 1.5 .5 1e3 1E-3 1_000 0o17 0x1F 017 .inf -.Inf .nan 2026-11-30 12:30 12:30:45".split(),
    "",
    " ",
    "-",
    "- item",
    ": x",
    "x: y",
    "x:y",
    "*alias",
    "&anchor",
    "!tag",
    "!!str",
    "%YAML",
    "@at",
    "`tick",
    "#comment",
    "a #b",
    "[x]",
    "{x: 1}",
    "|",
    "> x",
    "'single'",
    '"double"',
    "?",
    "? x",
    "---",
    "...",
    "  leading",
    "trailing  ",
    "tab\there",
    "multi\nline\n",
    "\n",
    "\n\n",
    "x\n  y",
    "  x\ny\n\n",
    "a\r\nb",
    "é ü 中 🙂",
    "\u2028",
    "\x85",
    "\ufeff",
    "\x00",
    "\x1b[31m",
    "word " * 30,
    ("long line " * 15).strip() + "\nand another line",
]

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(AWKWARD)
    # Long text, as descriptions are: folded, or kept on one line where folding could change it.
    | st.lists(st.text(min_size=1, max_size=12), min_size=10, max_size=30).map(" ".join)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text() | st.sampled_from(AWKWARD), inner, max_size=5),
    max_leaves=20,
)


def _loaded(text: str) -> Any:
    data, _, problems = load_yaml(text, "imported.yaml")
    assert problems == [], text
    return data


@pytest.mark.parametrize("text", AWKWARD)
def test_awkward_strings_load_back_as_the_same_strings(text: str) -> None:
    written = yaml_text({"value": text, text: "as a key"})
    assert _loaded(written) == {"value": text, text: "as a key"}, written


@pytest.mark.slow  # 300 examples: 2.5 to 4 s of CPU
@settings(max_examples=int(os.environ.get("MCPGEN_IMPORT_EXAMPLES", "300")), deadline=None)
@given(_JSON)
def test_any_json_value_loads_back_identical_and_writes_the_same_bytes(value: Any) -> None:
    written = yaml_text({"value": value})
    assert identical(_loaded(written)["value"], value), written
    assert yaml_text({"value": copy.deepcopy(value)}) == written


def test_text_for_people_uses_block_scalars_and_keeps_key_order() -> None:
    written = yaml_text(
        {"z": "first key", "description": "line one\nline two\n", "long": "word " * 25 + "end", "required": ["a", "b"]}
    )
    assert written.index("z:") < written.index("description:") < written.index("long:")
    assert "description: |\n  line one\n  line two\n" in written
    assert "long: >-\n" in written
    assert "required: [a, b]\n" in written


# --- the mapping onto the format ---------------------------------------------------------------

ANY_OBJECT = {"type": "object"}


def test_what_a_spec_cannot_hold_is_reported_by_name() -> None:
    capture = {
        "serverInfo": {"name": "demo", "version": "1", "vendor": "acme"},
        "capabilities": {"tools": {"listChanged": True}, "experimental": {"x": {}}},
        "tools": [
            {"name": "fine", "title": "Fine", "inputSchema": ANY_OBJECT, "x-cost": {"credits": 3}},
            {"name": "fine", "inputSchema": ANY_OBJECT},
            {"name": "has space", "inputSchema": ANY_OBJECT},
            {"name": "array_arguments", "inputSchema": {"type": "array"}},
            {"name": "odd_hint", "inputSchema": ANY_OBJECT, "annotations": {"readOnlyHint": "yes"}},
        ],
        "resources": [{"name": "notes", "uri": "notes://all", "x-owner": "me"}],
        "resourceTemplates": [{"name": "notes", "uriTemplate": "notes://{id}"}],
        "prompts": [{"name": "greet", "arguments": [{"name": "who", "default": "you"}]}],
    }
    spec, losses = spec_data(capture, "demo")
    assert {(loss.item, loss.key) for loss in losses} == {
        ("server", "vendor"),
        ("tool 'fine'", "x-cost"),
        ("tool 'fine'", None),  # the second one
        ("tool 'has space'", None),
        ("tool 'array_arguments'", None),
        ("tool 'odd_hint'", "annotations"),
        ("resource 'notes'", "x-owner"),
        ("resource template 'notes'", None),
        ("prompt 'greet' argument 'who'", "default"),
    }
    assert spec["server"] == {
        "name": "demo",
        "version": "1",
        "package": "demo",
        # A prompt with arguments implies completion, which the server does not announce.
        "capabilities": {"tools": {"listChanged": True}, "completions": False},
    }
    assert spec["tools"] == {
        "fine": {"title": "Fine", "inputSchema": ANY_OBJECT},
        "odd_hint": {"inputSchema": ANY_OBJECT},
    }
    assert spec["resources"] == {"notes": {"uri": "notes://all"}}
    assert spec["prompts"] == {"greet": {"arguments": [{"name": "who"}]}}


def test_the_format_holds_every_key_of_the_corpus() -> None:
    for path in sorted(CORPUS.glob("*.json")):
        _, losses = spec_data(json.loads(path.read_text()), "corpus")
        assert losses == [], path.name


# --- shared definitions ----------------------------------------------------------------------

ZIP = {"type": "string", "pattern": "^[0-9]{5}$", "description": "A postal code."}
ADDRESS = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "zip": {"$ref": "#/$defs/Zip"}},
    "required": ["street", "zip"],
}


def _with_address(field: str, address: dict[str, Any] = ADDRESS) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {field: {"$ref": "#/$defs/Address"}},
        "$defs": {"Address": address, "Zip": ZIP},
    }


SHARED_TOOLS = {
    "ship": {"inputSchema": _with_address("to")},
    "bill": {"inputSchema": {"type": "object"}, "outputSchema": _with_address("billing")},
    "visit": {"inputSchema": _with_address("at")},
    # One name with two contents: each keeps its own (a spec cannot hold both under one name).
    "abroad": {"inputSchema": {"type": "object", "$defs": {"Country": {"type": "string"}}}},
    "overseas": {"inputSchema": {"type": "object", "$defs": {"Country": {"enum": ["FR", "DE"]}}}},
    # A definition pointing at the schema's root means something else once shared.
    "tree": {
        "inputSchema": {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"up": {"$ref": "#"}}}},
        }
    },
    "forest": {
        "inputSchema": {
            "type": "object",
            "properties": {"nodes": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            "$defs": {"Node": {"type": "object", "properties": {"up": {"$ref": "#"}}}},
        }
    },
}


def test_repeated_defs_become_shared_definitions_that_bundle_back_exactly() -> None:
    definitions, tools = extract_shared_definitions(copy.deepcopy(SHARED_TOOLS))
    assert definitions == {
        "Address": {**ADDRESS, "properties": {"street": {"type": "string"}, "zip": {"$ref": "#/definitions/Zip"}}},
        "Zip": ZIP,
    }
    assert tools["ship"]["inputSchema"] == {"type": "object", "properties": {"to": {"$ref": "#/definitions/Address"}}}
    assert "$defs" not in tools["bill"]["outputSchema"]
    assert tools["abroad"] == SHARED_TOOLS["abroad"] and tools["overseas"] == SHARED_TOOLS["overseas"]
    assert tools["tree"] == SHARED_TOOLS["tree"] and tools["forest"] == SHARED_TOOLS["forest"]
    for name, tool in tools.items():
        for key, schema in tool.items():
            assert canonical(bundle(schema, definitions)) == canonical(SHARED_TOOLS[name][key]), (name, key)


# --- the command line --------------------------------------------------------------------------


def test_import_needs_exactly_one_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import"]) == 2
    assert main(["import", str(CORPUS / "time.json"), "--url", "http://127.0.0.1:9/mcp"]) == 2
    assert "name one source" in capsys.readouterr().err


def test_import_never_overwrites_a_spec_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("mine\n")
    assert main(["import", str(CORPUS / "time.json"), "-o", str(spec)]) == 1
    assert spec.read_text() == "mine\n"
    assert f"{spec}: error: exists" in capsys.readouterr().err


def test_a_broken_capture_is_reported_with_its_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"serverInfo": {"name": "x",\n  "version": }}\n')
    assert main(["import", str(broken)]) == 1
    assert capsys.readouterr().err.startswith(f"{broken}:2:14: error: not JSON: Expecting value")
    shapeless = tmp_path / "shapeless.json"
    shapeless.write_text('{"serverInfo": {"name": "x", "version": "1"}, "tools": [{"title": "no name"}]}')
    assert main(["import", str(shapeless)]) == 1
    assert (
        f"{shapeless}:1:1: error: not a capture: tools[0] must be an object with a string name"
        in capsys.readouterr().err
    )


def test_a_server_that_cannot_start_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--stdio", "/nonexistent/mcp-server --flag"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("/nonexistent/mcp-server --flag: error: cannot list the server: ")
    assert "Traceback" not in err


# --- round trips -----------------------------------------------------------------------------

SHARED_CAPTURE = {
    "serverInfo": {"name": "shared-defs", "version": "1.0.0"},
    "capabilities": {"tools": {"listChanged": False}},
    "tools": [{"name": name, **tool} for name, tool in SHARED_TOOLS.items()],
}
CAPTURES = {path.stem: json.loads(path.read_text()) for path in sorted(CORPUS.glob("*.json"))} | {
    "shared_defs": SHARED_CAPTURE
}


def _expected(capture: dict[str, Any], mode: str) -> dict[str, list[dict[str, Any]]]:
    """The four lists of a capture as a client of `mode` is listed them."""
    lists = {key: capture.get(key, []) for key in ("tools", "resources", "resourceTemplates", "prompts")}
    lists["tools"] = tools_as_listed(lists["tools"], mode)
    return lists


def _assert_same_lists(served: dict[str, Any], expected: dict[str, Any], what: str) -> None:
    if not identical(served, expected):
        diff = difflib.unified_diff(
            json.dumps(expected, indent=1, sort_keys=True).splitlines(),
            json.dumps(served, indent=1, sort_keys=True).splitlines(),
            "original",
            "served",
            lineterm="",
        )
        pytest.fail(f"{what}: the built server does not serve the original lists\n" + "\n".join(diff), pytrace=False)


def _import(*arguments: str) -> str:
    """`mcpgen import ARGUMENTS` in a fresh interpreter; its stderr. It must succeed."""
    result = run_mcpgen("import", *arguments)
    assert result.returncode == 0, result.stderr
    return result.stderr


@pytest.mark.slow  # builds a package and starts it twice over stdio
@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_a_capture_round_trips_and_the_built_server_imports_back_to_the_same_spec(name: str, tmp_path: Path) -> None:
    capture = CAPTURES[name]
    capture_file = tmp_path / "capture.json"
    capture_file.write_text(json.dumps(capture))
    spec = tmp_path / "spec.yaml"
    package = f"imported_{name}"
    stderr = _import(str(capture_file), "-o", str(spec), "--package", package)
    assert "0 things not carried over exactly" in stderr, stderr
    if name == "shared_defs":
        assert "\ndefinitions:\n  Address:\n" in spec.read_text()
    validated = run_mcpgen("validate", str(spec))
    assert validated.returncode == 0, validated.stderr

    out = tmp_path / "out"
    with built_package(spec, out) as generated:
        server = generated.create_server(stub_implementation(generated.Handlers))
        for mode in ("auto", "legacy"):
            _assert_same_lists(
                anyio.run(server_listings, server, mode), _expected(capture, mode), f"{name} in {mode} mode"
            )

    # Served live, a few items per page, the built server imports back to the very same spec.
    (out / "app.py").write_text(run_mcpgen("stub", str(spec), check=True).stdout)
    paged = tmp_path / "paged.yaml"
    paged.write_text(spec.read_text().replace("\nserver:\n", "\nserver:\n  pageSize: 2\n", 1))
    run_mcpgen("build", str(paged), "-o", str(out), "--allow-outside-project", check=True)
    server_command = f"{sys.executable} {out / 'app.py'}"
    for era in ("modern", "legacy"):
        again = tmp_path / f"again-{era}.yaml"
        stderr = _import("--stdio", server_command, "--era", era, "-o", str(again), "--package", package)
        expected = spec.read_text()
        if era == "modern":  # 2026-07-28's tools/list does not say which tools run as tasks
            expected = re.sub(r"    execution:\n      taskSupport: \w+\n", "", expected)
            tasks = re.search(r"taskSupport: (optional|required)", spec.read_text()) is not None
            assert ("import with --era legacy to keep each tool's execution.taskSupport" in stderr) == tasks
        assert again.read_text() == expected, f"{era}: re-import differs"


@pytest.mark.slow  # starts the example server over HTTP and builds what it imports
def test_a_server_over_streamable_http_imports_and_serves_the_same_lists(tmp_path: Path) -> None:
    with http_server([sys.executable, str(EXAMPLE_APP)]) as url:
        capture_file = tmp_path / "capture.json"
        spec = tmp_path / "gift.yaml"
        stderr = _import("--url", url, "-o", str(spec), "--package", "imported_gift", "--capture", str(capture_file))
        original = anyio.run(server_listings, url, "auto")
    assert "0 things not carried over" in stderr, stderr
    capture = json.loads(capture_file.read_text())
    assert capture["serverInfo"]["name"] == "gift-server"
    with built_package(spec, tmp_path / "out") as generated:
        server = generated.create_server(stub_implementation(generated.Handlers))
        for mode in ("auto", "legacy"):
            _assert_same_lists(anyio.run(server_listings, server, mode), original, f"gift server in {mode} mode")


@pytest.mark.slow  # builds the imported spec in memory
def test_strict_fails_an_import_that_loses_something(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = str(tmp_path / "tasks.json")  # announces a capability the format cannot declare
    Path(capture).write_text(
        json.dumps({**json.loads((CORPUS / "time.json").read_text()), "capabilities": {"tasks": {"list": {}}}})
    )
    assert main(["import", capture]) == 0
    spec = capsys.readouterr().out
    assert main(["import", capture, "--strict"]) == 1
    captured = capsys.readouterr()
    assert captured.out == spec
    assert f"{capture}: warning: server: capability 'tasks' is" in captured.err


@pytest.mark.slow  # builds the imported spec in memory, three times
def test_items_mcpgen_cannot_build_or_serve_alike_are_left_out_or_reported_by_name(tmp_path: Path) -> None:
    capture = {
        "serverInfo": {"name": "odd", "version": "1"},
        "capabilities": {"tools": {"listChanged": False}},
        "tools": [
            {"name": "fine", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}},
            {  # draft-07 style: a spec reserves `#/definitions/` for its shared definitions
                "name": "draft7",
                "inputSchema": {
                    "type": "object",
                    "properties": {"a": {"$ref": "#/definitions/A"}},
                    "definitions": {"A": {"type": "string"}},
                },
            },
            {"name": "lookbehind", "inputSchema": {"type": "object", "properties": {"a": {"pattern": "(?<=x"}}}},
            {"name": "listing", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
        ],
    }
    capture_file = tmp_path / "odd.json"
    capture_file.write_text(json.dumps(capture))
    spec = tmp_path / "odd.yaml"
    stderr = _import(str(capture_file), "-o", str(spec))
    assert f"{capture_file}: warning: tool 'draft7': mcpgen cannot build it ($ref '#/definitions/A'" in stderr
    assert f"{capture_file}: warning: tool 'lookbehind': mcpgen cannot build it (pattern '(?<=x'" in stderr
    assert f"{capture_file}: warning: tool 'listing': 'outputSchema' would be served differently" in stderr
    assert "'fine'" not in stderr
    validated = run_mcpgen("validate", str(spec))
    assert validated.returncode == 0, validated.stderr
    with built_package(spec, tmp_path / "out") as generated:
        served = anyio.run(server_listings, generated.create_server(stub_implementation(generated.Handlers)), "auto")
    assert [tool["name"] for tool in served["tools"]] == ["fine", "listing"]
    assert identical(served["tools"][0], capture["tools"][0])


# --- the deadline ------------------------------------------------------------------------------


def test_the_deadline_stops_cpu_bound_work_that_catches_every_exception() -> None:
    """`--timeout` holds in the middle of a stage too: the timer's OutOfTime is a
    BaseException, so code that carries on after any Exception (as the checks do) cannot
    swallow it; the handler and timer that were there before are put back."""
    import signal
    import time

    from mcpgen.importer.bounds import Deadline, OutOfTime

    def busy_and_forgiving() -> None:
        while True:
            try:
                sum(range(1000))
            except Exception:
                continue

    before = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(OutOfTime, match=r"did not finish within --timeout 0.2 s \(checking\)"):
        with Deadline(0.2).enforced("checking"):
            busy_and_forgiving()
    assert time.monotonic() - started < 2
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with pytest.raises(OutOfTime):
        Deadline(0).check("listing")
