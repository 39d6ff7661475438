"""Realistic mcpgen specs of any size, for the benchmarks; deterministic.

    python benchmarks/specs.py N [DIRECTORY] [--edited]

writes `spec.yaml` with N tools into DIRECTORY (default: a new temporary folder) and
prints its path. The same N always gives the same bytes: every tool is drawn from a
random generator seeded by its own index, so the first 100 tools of the 500-tool spec
are the 100-tool spec's.

Each tool takes a nested input object (strings with patterns and lengths, enums, bounded
numbers and integers, arrays of objects, optional and nullable fields, defaults,
descriptions), refers to some of the 20 shared definitions with `$ref` (seven of them
enums), and returns an object. The spec also has a few resources and prompts.
`--edited` writes the "one tool edited" variant: the same spec with the description of
its middle tool changed, for incremental rebuilds.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path
from typing import Any

import yaml

SEED = "mcpgen-benchmark-1"
SPEC_FILE = "spec.yaml"

VERBS = ["create", "update", "get", "list", "search", "archive", "approve", "export", "sync", "schedule"]
NOUNS = [
    "invoice", "order", "customer", "shipment", "ticket", "report", "project", "task", "payment",
    "product", "contract", "campaign", "warehouse", "employee", "booking", "subscription",
]  # fmt: skip
WORDS = [
    "the", "record", "account", "given", "current", "matching", "workspace", "owner", "team",
    "pending", "recent", "selected", "billing", "region", "status", "filtered", "linked", "shared",
]  # fmt: skip


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/definitions/{name}"}


# The 20 shared definitions: seven enums, and objects that refer to some of them.
DEFINITIONS: dict[str, Any] = {
    "Currency": {"type": "string", "enum": ["EUR", "USD", "GBP", "JPY", "CHF"], "description": "ISO 4217 code."},
    "Priority": {"type": "string", "enum": ["low", "normal", "high", "urgent"], "description": "How soon it matters."},
    "Status": {"type": "string", "enum": ["draft", "open", "in_progress", "done", "cancelled"]},
    "Region": {"type": "string", "enum": ["eu-west", "eu-central", "us-east", "us-west", "ap-south"]},
    "Unit": {"type": "string", "enum": ["piece", "kg", "litre", "metre", "hour"]},
    "Visibility": {"type": "string", "enum": ["private", "team", "public"], "description": "Who can see it."},
    "Weekday": {"type": "string", "enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
    "Money": {
        "type": "object",
        "description": "An amount in a currency.",
        "properties": {
            "amount": {"type": "number", "minimum": 0, "maximum": 1000000000},
            "currency": _ref("Currency"),
        },
        "required": ["amount", "currency"],
        "additionalProperties": False,
    },
    "Address": {
        "type": "object",
        "properties": {
            "street": {"type": "string", "minLength": 1, "maxLength": 200},
            "city": {"type": "string", "minLength": 1, "maxLength": 100},
            "postal_code": {"type": "string", "pattern": "^[A-Z0-9 -]{3,10}$"},
            "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2."},
            "region": _ref("Region"),
        },
        "required": ["street", "city", "country"],
        "additionalProperties": False,
    },
    "Pagination": {
        "type": "object",
        "properties": {
            "page": {"type": "integer", "minimum": 1, "default": 1},
            "per_page": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        },
        "additionalProperties": False,
    },
    "DateRange": {
        "type": "object",
        "description": "Inclusive calendar dates.",
        "properties": {
            "start": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}$"},
            "end": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}$"},
        },
        "required": ["start", "end"],
        "additionalProperties": False,
    },
    "Tag": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": "^[a-z0-9-]{1,32}$"},
            "color": {"type": "string", "pattern": "^#[0-9a-f]{6}$", "default": "#888888"},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
    "UserRef": {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^usr_[A-Za-z0-9]{12}$"},
            "display_name": {"type": "string", "maxLength": 80},
        },
        "required": ["id"],
        "additionalProperties": False,
    },
    "GeoPoint": {
        "type": "object",
        "properties": {
            "lat": {"type": "number", "minimum": -90, "maximum": 90},
            "lon": {"type": "number", "minimum": -180, "maximum": 180},
        },
        "required": ["lat", "lon"],
        "additionalProperties": False,
    },
    "Attachment": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 255},
            "media_type": {"type": "string", "enum": ["application/pdf", "image/png", "image/jpeg", "text/csv"]},
            "size": {"type": "integer", "minimum": 0, "maximum": 104857600},
        },
        "required": ["name", "media_type"],
        "additionalProperties": False,
    },
    "AuditInfo": {
        "type": "object",
        "properties": {
            "created_by": _ref("UserRef"),
            "created_at": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$"},
            "comment": {"type": ["string", "null"], "maxLength": 500},
        },
        "required": ["created_by", "created_at"],
        "additionalProperties": False,
    },
    "Quantity": {
        "type": "object",
        "properties": {"value": {"type": "number", "exclusiveMinimum": 0}, "unit": _ref("Unit")},
        "required": ["value", "unit"],
        "additionalProperties": False,
    },
    "ContactInfo": {
        "type": "object",
        "properties": {
            "email": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$", "maxLength": 254},
            "phone": {"type": ["string", "null"], "pattern": "^\\+[0-9]{6,15}$"},
            "address": _ref("Address"),
        },
        "required": ["email"],
        "additionalProperties": False,
    },
    "OpeningHours": {
        "type": "object",
        "properties": {
            "days": {"type": "array", "items": _ref("Weekday"), "minItems": 1, "maxItems": 7},
            "opens": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
            "closes": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
        },
        "required": ["days", "opens", "closes"],
        "additionalProperties": False,
    },
    "Permission": {
        "type": "object",
        "properties": {
            "visibility": _ref("Visibility"),
            "editors": {"type": "array", "items": _ref("UserRef"), "maxItems": 20},
        },
        "required": ["visibility"],
        "additionalProperties": False,
    },
}
assert len(DEFINITIONS) == 20
ENUMS = [name for name, schema in DEFINITIONS.items() if "enum" in schema]
OBJECTS = [name for name in DEFINITIONS if name not in ENUMS]


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def tool_name(index: int) -> str:
    return f"{VERBS[index % len(VERBS)]}_{NOUNS[index // len(VERBS) % len(NOUNS)]}_{index:05d}"


def _line_item(rng: random.Random) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4,8}$"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 1},
            "unit_price": _ref("Money"),
            "note": {"type": ["string", "null"], "maxLength": 200, "description": _sentence(rng, 5)},
        },
        "required": ["sku", "quantity"],
        "additionalProperties": False,
    }


def _input_schema(rng: random.Random, noun: str) -> dict[str, Any]:
    modes = rng.sample(["fast", "thorough", "preview", "strict", "lenient", "batch"], rng.randint(2, 5))
    candidates: dict[str, dict[str, Any]] = {
        f"{noun}_id": {
            "type": "string",
            "pattern": f"^{noun[:3]}_[A-Za-z0-9]{{8,24}}$",
            "description": f"Id of the {noun}.",
        },
        "title": {"type": "string", "minLength": 1, "maxLength": rng.choice([80, 120, 200]), "description": _sentence(rng, 6)},
        "mode": {"type": "string", "enum": modes, "default": modes[0], "description": _sentence(rng, 4)},
        "amount": {"type": "number", "minimum": 0, "maximum": rng.choice([1000, 50000, 1000000])},
        "limit": {"type": "integer", "minimum": 1, "maximum": rng.choice([50, 100, 500]), "default": 20},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "items": {
            "type": "array",
            "items": _line_item(rng),
            "minItems": 1,
            "maxItems": rng.choice([20, 50, 100]),
            "description": _sentence(rng, 5),
        },
        "note": {"type": ["string", "null"], "maxLength": 1000, "description": "Free text, or null to clear it."},
        "labels": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 10, "uniqueItems": True},
        "options": {
            "type": "object",
            "description": _sentence(rng, 5),
            "properties": {
                "dry_run": {"type": "boolean", "default": False},
                "notify": {"type": "boolean", "default": True},
                "priority": _ref(rng.choice(["Priority", "Status"])),
                "tags": {"type": "array", "items": _ref("Tag"), "maxItems": 10},
                "schedule": {
                    "type": "object",
                    "properties": {
                        "weekday": _ref("Weekday"),
                        "hour": {"type": "integer", "minimum": 0, "maximum": 23},
                        "timezone": {"type": "string", "pattern": "^[A-Za-z]+/[A-Za-z_]+$", "default": "Europe/Paris"},
                    },
                    "required": ["weekday", "hour"],
                    "additionalProperties": False,
                },
            },
            "additionalProperties": False,
        },
    }
    for name in rng.sample(OBJECTS, rng.randint(2, 4)):
        candidates[name.lower() if name != "UserRef" else "assignee"] = _ref(name)
    for name in rng.sample(ENUMS, rng.randint(1, 2)):
        candidates[name.lower()] = _ref(name)
    names = [name for name in candidates if rng.random() < 0.75 or name in (f"{noun}_id", "options")]
    properties = {name: candidates[name] for name in names}
    required = [name for name in names if name in (f"{noun}_id", "title", "items") or rng.random() < 0.15]
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _output_schema(rng: random.Random, noun: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": f"Id of the {noun}."},
            "status": _ref("Status"),
            "total": {"type": "integer", "minimum": 0},
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "score": {"type": "number", "minimum": 0, "maximum": 1},
                        "price": _ref("Money"),
                        "updated": _ref("AuditInfo"),
                    },
                    "required": ["id", "score"],
                    "additionalProperties": False,
                },
            },
            "next_cursor": {"type": ["string", "null"]},
            "warnings": {"type": "array", "items": {"type": "string"}, "description": _sentence(rng, 4)},
        },
        "required": ["id", "status", "total"],
        "additionalProperties": False,
    }


def tool(index: int, edited: bool = False) -> dict[str, Any]:
    rng = random.Random(f"{SEED}:{index}")
    verb, noun = tool_name(index).split("_")[:2]
    description = f"{verb.capitalize()} {noun}s. {_sentence(rng, rng.randint(8, 20))}"
    if edited:
        description += " Edited: now also reports warnings."
    return {
        "title": f"{verb.capitalize()} {noun} #{index}",
        "description": description,
        "annotations": {"readOnlyHint": verb in ("get", "list", "search", "export"), "openWorldHint": False},
        "inputSchema": _input_schema(rng, noun),
        "outputSchema": _output_schema(rng, noun),
    }


RESOURCES: dict[str, Any] = {
    "currencies": {
        "uri": "bench://reference/currencies",
        "description": "Every currency the server accepts.",
        "mimeType": "application/json",
        "schema": {"type": "object", "properties": {"currencies": {"type": "array", "items": _ref("Currency")}}},
    },
    "office": {
        "uriTemplate": "bench://offices/{office_id}",
        "description": "One office, by id.",
        "mimeType": "application/json",
        "schema": {
            "type": "object",
            "properties": {"address": _ref("Address"), "hours": _ref("OpeningHours"), "location": _ref("GeoPoint")},
            "required": ["address"],
        },
    },
    "terms": {"uri": "bench://legal/terms", "mimeType": "text/plain", "text": "Terms of service: be kind."},
    "changelog": {"uri": "bench://changelog", "description": "What changed, newest first.", "mimeType": "text/markdown"},
}

PROMPTS: dict[str, Any] = {
    "summarize_record": {
        "description": "Summarizes a record for a reader.",
        "arguments": [
            {"name": "record_id", "description": "Id of the record.", "required": True},
            {"name": "audience", "required": False, "completion": ["customer", "manager", "engineer"]},
        ],
        "messages": [{"role": "user", "text": "Summarize record {{ record_id }}{% if audience %} for a {{ audience }}{% endif %}."}],
    },
    "draft_reply": {
        "description": "Drafts a reply to a ticket.",
        "arguments": [{"name": "ticket_id", "required": True}, {"name": "tone", "required": False, "completion": ["warm", "formal"]}],
        "messages": [
            {"role": "user", "text": "Draft a {{ tone }} reply to ticket {{ ticket_id }}."},
            {"role": "assistant", "text": "Here is a draft:"},
        ],
    },
    "weekly_digest": {"description": "This week's digest, written by the server's own logic.", "arguments": [{"name": "team", "required": False}]},
}


def spec(tools: int, edited: bool = False) -> dict[str, Any]:
    """The spec with `tools` tools, as data; `edited` changes the middle tool's description."""
    return {
        "mcpgen": 1,
        "server": {
            "name": f"bench-{tools}",
            "version": "1.0.0",
            "title": f"Benchmark server with {tools} tools",
            "package": f"bench_{tools}",
        },
        "definitions": DEFINITIONS,
        "tools": {tool_name(i): tool(i, edited and i == tools // 2) for i in range(tools)},
        "resources": RESOURCES,
        "prompts": PROMPTS,
    }


def spec_text(tools: int, edited: bool = False) -> str:
    header = f"# A benchmark spec: {tools} tools (benchmarks/specs.py, seed {SEED!r}).\n"
    return header + yaml.safe_dump(spec(tools, edited), sort_keys=False, width=120, allow_unicode=True)


def write_spec(directory: Path, tools: int, edited: bool = False) -> Path:
    """`directory`/spec.yaml with `tools` tools (the edited variant if `edited`); returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SPEC_FILE
    path.write_text(spec_text(tools, edited), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tools", type=int)
    parser.add_argument("directory", type=Path, nargs="?")
    parser.add_argument("--edited", action="store_true", help="the one-tool-edited variant")
    options = parser.parse_args()
    directory = options.directory or Path(tempfile.mkdtemp(prefix=f"mcpgen-spec-{options.tools}-"))
    print(write_spec(directory, options.tools, options.edited))


if __name__ == "__main__":
    main()
