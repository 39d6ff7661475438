"""Every Python name that generated code uses, decided in one place.

Names derive from a spec name alone, never from position or order, so adding or
reordering tools elsewhere in a spec leaves every other name unchanged.
"""

from __future__ import annotations

import hashlib
import keyword
import re
from typing import TYPE_CHECKING

from mcpgen.names.module_names import GENERATED_MODULES, HANDLERS

if TYPE_CHECKING:
    from mcpgen.spec.model import Server

_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")

# Names a handler's parameter may not take: they are the method's own.
_TAKEN_PARAMETERS = frozenset(HANDLERS.method_names)


def _words(name: str) -> list[str]:
    return _WORDS.findall(name)


def snake(name: str) -> str:
    """`suggest-gifts`, `suggestGifts`, `suggest.gifts` -> `suggest_gifts`."""
    text = "_".join(word.lower() for word in _words(name)) or "x"
    if text[0].isdigit():
        text = f"n{text}"
    return f"{text}_" if keyword.iskeyword(text) or keyword.issoftkeyword(text) else text


def pascal(name: str) -> str:
    """`gift_catalog`, `gift-catalog` -> `GiftCatalog`; inner capitals are kept (`GiftCard`)."""
    text = "".join(word[0].upper() + word[1:] for word in _words(name)) or "X"
    return f"N{text}" if text[0].isdigit() else text


def parameter(name: str) -> str:
    """A keyword-argument name for a URI-template variable or prompt argument."""
    text = snake(name)
    return f"{text}_" if text in _TAKEN_PARAMETERS else text


def package(server_name: str) -> str:
    return snake(server_name)


def package_of(server: Server) -> str:
    """The spec's `server.package`, or one derived from the server's name."""
    return server.package or package(server.name)


def client_class(server_name: str) -> str:
    return f"{pascal(server_name)}Client"


def tool_method(tool_name: str) -> str:
    return snake(tool_name)


def task_method(tool_name: str) -> str:
    """The client method that starts a tool as a task (tools that allow tasks only)."""
    return f"start_{snake(tool_name)}"


def resource_method(resource_name: str) -> str:
    return f"read_{snake(resource_name)}"


def prompt_method(prompt_name: str) -> str:
    return f"get_{snake(prompt_name)}"


def tool_input_model(tool_name: str) -> str:
    return f"{pascal(tool_name)}Input"


def tool_output_model(tool_name: str) -> str:
    return f"{pascal(tool_name)}Output"


def resource_content_model(resource_name: str) -> str:
    return f"{pascal(resource_name)}Content"


def prompt_arguments_model(prompt_name: str) -> str:
    return f"{pascal(prompt_name)}Arguments"


# Names generated modules define or import beside the models (see module_names.py): a
# shared definition's class may not take one, or it would shadow it.
RESERVED_MODEL_NAMES = frozenset().union(*(module.names for module in GENERATED_MODULES))


def definition_model(definition_name: str) -> str:
    """`Gift` -> `Gift`; a name the package already uses (`Context`) -> `ContextModel`."""
    name = pascal(definition_name)
    return f"{name}Model" if name in RESERVED_MODEL_NAMES else name


# A file name inside the package: short enough for any file system, and portable.
_STATIC_STEM_LENGTH = 64
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,16}")


def static_file(resource_name: str, source: str) -> str:
    """The package's copy of a resource's `file`: the resource's name in snake_case (cut
    short, with a hash of the whole name, when it is long) and the source's extension,
    when it is a plain one (`.html`), so any spec name gives a file name every system takes."""
    stem = snake(resource_name)
    if len(stem) > _STATIC_STEM_LENGTH:
        digest = hashlib.sha256(resource_name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        stem = f"{stem[:_STATIC_STEM_LENGTH]}_{digest}"
    suffix = source.rsplit("/", 1)[-1].rpartition(".")
    extension = "." + suffix[2] if suffix[1] and suffix[0] else ""
    return stem + (extension if _SUFFIX.fullmatch(extension) else "")


def model_module(method: str) -> str:
    """The module of `models/` that holds the models of the tool, resource or prompt whose
    handler method is `method`: the method's name, cut short with a hash of the whole name
    when it is long, so that every file system takes the file name."""
    if len(method) <= _STATIC_STEM_LENGTH:
        return method
    digest = hashlib.sha256(method.encode()).hexdigest()[:12]
    return f"{method[:_STATIC_STEM_LENGTH]}_{digest}"
