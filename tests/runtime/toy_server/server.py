"""The toy's server.py, as mcpgen would generate it on the runtime's binding API."""

from __future__ import annotations

from typing import Any

from mcpgen.runtime.prompts import PromptBinding
from mcpgen.runtime.resources import ResourceBinding, TemplateBinding
from mcpgen.runtime.server import GeneratedServer, build_server
from mcpgen.runtime.tools import ToolBinding

from .handlers import Toy
from .models import (
    AskNameInput,
    DivideInput,
    DivideOutput,
    EchoInput,
    GreetArguments,
    HalvesInput,
    HalvesOutput,
    Item,
    Stats,
    SummaryArguments,
)


def bindings(handlers: Toy) -> dict[str, Any]:
    """build_server's keyword arguments. The mappings are in another order than
    schema.json's on purpose: the lists must follow schema.json."""
    return {
        "tools": {
            "echo": ToolBinding(handlers.echo, EchoInput),
            "ask_name": ToolBinding(handlers.ask_name, AskNameInput),
            "halves": ToolBinding(
                handlers.halves, HalvesInput, HalvesOutput, wrapped=True
            ),
            "divide": ToolBinding(handlers.divide, DivideInput, DivideOutput),
        },
        "resources": {
            "note": ResourceBinding(handlers.read_note),
            "stats": ResourceBinding(handlers.read_stats, Stats),
            "logo": ResourceBinding(file="_static/logo.png", binary=True),
            "widget": ResourceBinding(file="_static/widget.html"),
            "raw": ResourceBinding(blob="aGVsbG8="),
            "motd": ResourceBinding(text="hello"),
        },
        "templates": {"item": TemplateBinding(handlers.read_item, {"id": "id"}, Item)},
        "prompts": {
            "summary": PromptBinding(SummaryArguments, get=handlers.get_summary),
            "greet": PromptBinding(GreetArguments),  # its messages: prompts.json
        },
        "completions": {("prompt", "greet"): {"tone": ["warm", "witty", "formal"]}},
        "complete": handlers.complete,
    }


def create_server(handlers: Toy | None = None, **options: Any) -> GeneratedServer:
    """The toy server; `options` override build_server's keyword arguments."""
    return build_server(__package__, **{**bindings(handlers or Toy()), **options})
