"""Text from specs and servers on the terminal: names, descriptions, keywords, patterns, enum
values and server error messages that carry control characters are printed as visible
escapes. No command prints a raw control character from them (ESC sequences that set the
title, clear the screen or write the clipboard, carriage returns that overwrite a line,
bidirectional overrides), and none lets them start a line of their own: not a forged
summary, not a `::error::` workflow command for the CI runner."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest
from helpers import CORPUS, run_mcpgen

from mcpgen.cli import main
from mcpgen.utils.terminal import json_shown, shown

FORGED = "spec.yaml: imported 2 tools; 0 things not carried over exactly"
# The title, the clipboard (OSC 52), a cleared screen, a line overwritten and one forged, a
# workflow command, a right-to-left override, a C1 CSI, DEL, a tab.
EVIL = f"x\x1b]0;owned\x07\x1b]52;c;aGk=\x07\x1b[2J\r{FORGED}\n::error::forged\u202eok\x9b31m\x7f\t"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's escapes are YAML's too)."""
    return json.dumps(text)


BAD_SPEC = f"""\
mcpgen: 1
server: {{name: demo, version: "1"}}
tools:
  {_q(EVIL)}:
    description: {_q(EVIL)}
    inputSchema:
      type: object
      properties:
        {_q(EVIL)}: {{type: string, pattern: {_q(EVIL + "(")}, {_q(EVIL)}: 1}}
"""
GOOD_SPEC = f"""\
mcpgen: 1
server: {{name: demo, version: "1"}}
tools:
  t:
    description: {_q(EVIL)}
    inputSchema:
      type: object
      properties:
        {_q(EVIL)}: {{type: string, enum: [{_q(EVIL)}, ok], {_q(EVIL)}: 1}}
"""


def unsafe(char: str) -> bool:
    return unicodedata.category(char) == "Cc" or char in BIDI or char in "\u2028\u2029"


def assert_safe(output: str) -> None:
    """No raw control character on any line, no line that the quoted text starts; and the
    text was quoted (escaped) at all, or the check proves nothing."""
    assert "\\x1b]52;c;aGk=\\x07" in output or "\\u001b]52;c;aGk=\\u0007" in output, output
    for line in output.split("\n"):
        assert not any(unsafe(char) for char in line), repr(line)
        assert not line.startswith("::"), repr(line)
        assert not line.startswith(FORGED), repr(line)


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> str:
    main(list(arguments))
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_shown_escapes_every_control_and_keeps_the_rest() -> None:
    assert shown("tool 'a\x1b[2Jb'\n") == "tool 'a\\x1b[2Jb'\\n"
    assert shown("\r\t\x00\x7f\x85\x9b") == "\\r\\t\\x00\\x7f\\x85\\x9b"
    assert shown(BIDI + "\u2028") == "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c\\u2028"
    assert shown("naïve \\d+ 日本 🎁 -> ok") == "naïve \\d+ 日本 🎁 -> ok"
    assert not any(unsafe(char) for char in shown("".join(map(chr, range(0x300)))))


def test_json_shown_is_the_same_json_printable() -> None:
    text = json.dumps({"v": EVIL + BIDI}, ensure_ascii=False, indent=2)
    printable = json_shown(text)
    assert json.loads(printable) == json.loads(text)
    assert all(not unsafe(char) for line in printable.split("\n") for char in line)


def test_validate_quotes_hostile_names_patterns_and_keywords_on_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(BAD_SPEC)
    output = _run(capsys, "validate", str(spec))
    assert_safe(output)
    assert "error: tool name 'x\\x1b]0;owned\\x07" in output
    assert "::error::forged\\u202eok\\x9b31m\\x7f\\t' is not 1-64 characters" in output
    assert "\n  hint: " in output  # the message's own structure is kept


def test_a_hostile_file_name_is_escaped_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "a\x1b]52;c;aGk=\x07\n::error::b.yaml"
    spec.write_text(BAD_SPEC)
    output = _run(capsys, "validate", str(spec))
    assert_safe(output)
    assert "\\n::error::b.yaml:4:3: error:" in output


@pytest.mark.slow  # builds with the real generator
def test_build_prints_hostile_warnings_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".git").mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(GOOD_SPEC)
    output = _run(capsys, "build", str(spec))
    assert "warning: unknown JSON Schema keyword 'x\\x1b" in output
    assert_safe(output)


@pytest.mark.slow  # builds with the real generator
def test_check_prints_its_diff_of_hostile_text_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".git").mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(GOOD_SPEC)
    assert main(["build", str(spec)]) == 0
    capsys.readouterr()
    spec.write_text(GOOD_SPEC.replace("description: ", f"title: {_q(EVIL)}\n    description: "))
    output = _run(capsys, "check", str(spec))
    assert "out of date" in output
    assert_safe(output)


def test_lint_prints_hostile_names_escaped_in_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(GOOD_SPEC)
    output = _run(capsys, "lint", str(spec), "--profile", "openai-strict")
    assert "[openai-strict/required-all] property 'x\\x1b" in output
    assert_safe(output)
    output = _run(capsys, "lint", str(spec), "--profile", "openai-strict", "--format", "json")
    assert_safe(output)


@pytest.mark.slow  # renders the models of both specs
def test_diff_prints_hostile_names_and_values_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = tmp_path / "old.yaml"
    old.write_text(GOOD_SPEC)
    new = tmp_path / "new.yaml"
    new.write_text(GOOD_SPEC.replace(f"[{_q(EVIL)}, ok]", "[ok]"))
    output = _run(capsys, "diff", str(old), str(new))
    assert "[WIRE/enum-value-removed]" in output
    assert_safe(output)
    output = _run(capsys, "diff", str(old), str(new), "--format", "json")
    assert "enum-value-removed" in output
    assert_safe(output)


def _hostile_capture() -> dict[str, object]:
    capture = json.loads((CORPUS / "time.json").read_text())
    tool = capture["tools"][0]
    capture["tools"].append({**tool, "name": EVIL, "description": EVIL})
    tool["description"] = EVIL
    tool["inputSchema"]["properties"][EVIL] = {"type": "string", "enum": [EVIL], "pattern": EVIL + "("}
    tool["x-" + EVIL] = EVIL  # a key the spec format lacks: reported by name
    return capture


def test_import_reports_a_hostile_capture_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "capture.json"
    capture.write_text(json.dumps(_hostile_capture()))
    output = _run(capsys, "import", str(capture), "-o", str(tmp_path / "spec.yaml"))
    assert "not carried over exactly" in output
    assert_safe(output)


def test_import_relays_a_hostile_server_error_escaped(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    if 'id' in request:\n"
        f"        error = {{'code': -32603, 'message': {EVIL!r}}}\n"
        "        print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'error': error}), flush=True)\n"
    )
    # In a process of its own: the stdio client hands the server its real stderr.
    done = run_mcpgen("import", "--stdio", f"{sys.executable} {server}", "--era", "legacy", "--timeout", "20")
    output = done.stdout + done.stderr
    assert "cannot list the server" in output
    assert_safe(output)
