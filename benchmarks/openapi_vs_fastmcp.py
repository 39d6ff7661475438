"""mcpgen's OpenAPI import side by side with FastMCP's `from_openapi` (issue 25's proof).

    python benchmarks/openapi_vs_fastmcp.py [--documents github,twilio,openai,oai] [--examples 3]
                                            [--sides mcpgen,fastmcp]

(`oai` is all six of the OpenAPI Initiative's examples; `oai/petstore` one of them.)

For each document, one Prism mock (`prism mock --dynamic`: answers made from the response
schemas, afresh for each request; it refuses requests its document does not allow) serves as
the API, and each side makes an MCP server of the document in
front of it: mcpgen by `mcpgen import --openapi`, `mcpgen build` and `python -m PACKAGE
--http`; FastMCP 4.2.3 by `FastMCP.from_openapi(openapi_spec=..., client=httpx2.AsyncClient(
base_url=prism))`, in a venv of its own under .ci/_work/ (FastMCP pins its own `mcp`; the
script makes the venv on first run, from PyPI). The same client then lists the tools and
calls each with `--examples` arguments hypothesis makes from the tool's own inputSchema
(tests/openapi_harness.py); a call that failed while Prism logged that its own answer broke
the document is drawn again, up to 4 times. The table: tools, tools that answer every call,
calls drawn again, cold start (process start to the first tools/list answer, the median of
`--starts` processes) and the tools/list size; then each failure with its reason. The documents: tests/openapi/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from helpers import free_port  # noqa: E402
from openapi_documents import SOURCES, loaded, oai_examples, real_document  # noqa: E402
from openapi_harness import (  # noqa: E402
    Mock,
    Report,
    client_credentials,
    exercise,
    prism_mock,
    proof_folder,
    run_mcpgen_side,
    served,
    timed_starts,
)

FASTMCP = "fastmcp==4.2.3"
FASTMCP_VENV = Path(os.environ.get("MCPGEN_FASTMCP_VENV", ROOT / ".ci" / "_work" / "fastmcp-venv"))
FASTMCP_SERVER = Path(__file__).resolve().parent / "fastmcp_openapi_server.py"


def fastmcp_python() -> Path:
    """The venv's python, the venv made (and FastMCP installed) on first use."""
    python = FASTMCP_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(FASTMCP_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", FASTMCP], check=True)
    return python


def run_fastmcp_side(document: Path, name: str, mock: Mock, folder: Path, examples: int, starts: int) -> Report:
    as_json = (
        folder / f"{name.replace('/', '-')}.json"
    )  # FastMCP takes the document as a dict; JSON keeps its dates strings
    as_json.write_text(json.dumps(loaded(document.read_bytes(), document.name)), encoding="utf-8")
    port = free_port()

    def command(port: int) -> list[str]:
        return [str(fastmcp_python()), str(FASTMCP_SERVER), str(as_json), mock.url, str(port)]

    environment = dict(os.environ, PROOF_CREDENTIALS=json.dumps(client_credentials(document)))
    try:
        with served(command(port), port, environment, folder) as server:
            report = asyncio.run(exercise(server, name, "FastMCP", mock, examples))
        timed_starts(command, environment, folder, report, starts)
    except (RuntimeError, TimeoutError) as error:
        return Report(name, "FastMCP", problem=str(error)[-1500:])
    return report


def documents(chosen: list[str]) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for name in chosen:
        if name.startswith("oai"):  # all of them, or one: oai/petstore
            found += [(f"oai/{path.stem}", path) for path in oai_examples() if name in ("oai", f"oai/{path.stem}")]
        else:
            found.append((name, real_document(name)))
    return found


def table(reports: list[Report]) -> str:
    rows = [("document", "server", "tools", "answering", "success", "drawn again", "cold start", "tools/list")]
    for report in reports:
        if report.problem:
            rows.append((report.document, report.server, "-", "-", "not served", "-", "-", "-"))
            continue
        rows.append(
            (
                report.document,
                report.server,
                str(report.tools),
                str(report.answering),
                f"{report.success:.1f} %",
                str(report.redrawn),
                f"{report.cold_start:.2f} s",
                f"{report.list_bytes:,} B",
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", default=",".join([source.name for source in SOURCES] + ["oai"]))
    parser.add_argument("--examples", type=int, default=3, help="calls per tool (default 3)")
    parser.add_argument("--sides", default="mcpgen,fastmcp")
    parser.add_argument("--starts", type=int, default=5, help="cold starts per server, the median shown (default 5)")
    options = parser.parse_args()
    sides = options.sides.split(",")
    folder = proof_folder()
    reports: list[Report] = []
    for name, document in documents(options.documents.split(",")):
        with prism_mock(document, folder) as mock:
            if "mcpgen" in sides:
                reports.append(
                    run_mcpgen_side(document, name, mock, folder / "mcpgen", options.examples, options.starts)
                )
                print(reports[-1].summary(), flush=True)
            if "fastmcp" in sides:
                reports.append(run_fastmcp_side(document, name, mock, folder, options.examples, options.starts))
                print(reports[-1].summary(), flush=True)
    print(f"\nOpenAPI proof: every tool called with {options.examples} generated arguments through a Prism mock\n")
    print(table(reports))
    print(f"\n(work folder: {folder})")


if __name__ == "__main__":
    main()
