"""Python names a spec would produce that cannot work: not identifiers, or two spec names
that become the same Python name and would overwrite each other."""

from __future__ import annotations

import functools
import keyword
from collections.abc import Iterator, Sequence

from mcpgen.check.paths import label
from mcpgen.diagnostics import Diagnostic
from mcpgen.names import naming
from mcpgen.spec.model import Spec
from mcpgen.spec.source import JsonPath, SourceMap
from mcpgen.spec.uri_templates import UriTemplateError, template_variables


def _unique(names: Sequence[tuple[str, JsonPath]], kind: str, source: SourceMap) -> Iterator[Diagnostic]:
    seen: dict[str, JsonPath] = {}
    for python_name, path in names:
        if python_name in seen:
            other = seen[python_name]
            yield source.error(
                path, f"{label(path)} and {label(other)} both become the {kind} '{python_name}'", "rename one of them"
            )
        else:
            seen[python_name] = path


# What a generated package imports: a package of the same name would hide it.
_RUNTIME_DEPENDENCIES = frozenset(
    {"mcp", "mcp_types", "pydantic", "pydantic_core", "jsonschema_rs", "anyio", "uvicorn", "starlette", "httpx"}
)


@functools.cache
def _installed_modules() -> frozenset[str]:
    """Top-level modules of the installed distributions; reading every distribution's
    metadata takes a tenth of a second, so once per process (`mcpgen diff` loads two specs)."""
    from importlib.metadata import packages_distributions

    return frozenset(packages_distributions())


# Modules Python imports by itself: `site` imports these at every start of the interpreter
# where they are on the path, so a package of that name runs in every Python process that
# can see it (a virtual environment's, or any with the folder on PYTHONPATH).
_STARTUP_HOOKS = frozenset({"sitecustomize", "usercustomize"})


def shadowed(package: str) -> str | None:
    """Why a package of this name cannot be generated (it would shadow a module, or be
    imported where nobody asked for it), or None."""
    import sys

    if package in _STARTUP_HOOKS:
        return f"the package name '{package}' is a module Python imports by itself at every start (site)"
    if package.startswith("__") and package.endswith("__"):
        return f"the package name '{package}' is one of Python's own (a double-underscore name)"
    if package in sys.stdlib_module_names:
        return f"the package name '{package}' would shadow the standard library's module"
    if package in _RUNTIME_DEPENDENCIES:
        return f"the package name '{package}' would shadow a dependency's module"
    return None


def import_package(server_name: str) -> str:
    """The package `mcpgen import` names for a server: derived from its name, unless that is
    refused or taken (`json`, `sitecustomize`), then with `_server` added (`json_server`)."""
    package = naming.package(server_name)
    if shadowed(package) is None and package not in _installed_modules():
        return package
    return f"{package}_server"


def _shadowing(spec: Spec) -> Iterator[Diagnostic]:
    """A package named like the standard library or a dependency would shadow it on import,
    one named like a start-up hook would run everywhere; one named like another installed
    module may shadow it, depending on `sys.path`."""
    package = naming.package_of(spec.server)
    path: JsonPath = ("server", "package") if spec.server.package else ("server", "name")
    hint = "set `server.package` to a name of your own, e.g. my_server"
    problem = shadowed(package)
    if problem is not None:
        yield spec.source.error(path, problem, hint, at_value=True)
    elif package in _installed_modules():
        yield spec.source.warning(
            path, f"the package name '{package}' is also an installed module; one would hide the other", hint, at_value=True
        )


def check_names(spec: Spec) -> list[Diagnostic]:
    source = spec.source
    problems: list[Diagnostic] = list(_shadowing(spec))
    package = spec.server.package
    if package is not None and (not package.isidentifier() or keyword.iskeyword(package)):
        problems.append(
            source.error(
                ("server", "package"), f"{package!r} is not a Python package name", "use e.g. my_server", at_value=True
            )
        )
    for resource in spec.resources:
        problems += _template_parameters(spec, resource.uri_template, resource.path)
    for prompt in spec.prompts:
        arguments_path = prompt.path + ("arguments",)
        parameters = [(naming.parameter(a.name), arguments_path + (index,)) for index, a in enumerate(prompt.arguments)]
        problems += _unique(parameters, "argument", source)

    methods = (
        [(naming.tool_method(tool.name), tool.path) for tool in spec.tools]
        + [(naming.task_method(t.name), t.path) for t in spec.tools if t.task_support in ("optional", "required")]
        + [(naming.resource_method(resource.name), resource.path) for resource in spec.resources]
        + [(naming.prompt_method(prompt.name), prompt.path) for prompt in spec.prompts]
    )
    method_clashes = list(_unique(methods, "method", source))
    problems += method_clashes
    models: list[tuple[str, JsonPath]] = [(naming.definition_model(n), ("definitions", n)) for n in spec.definitions]
    models += [(naming.tool_input_model(tool.name), tool.path) for tool in spec.tools]
    models += [(naming.tool_output_model(tool.name), tool.path) for tool in spec.tools if tool.output_schema]
    models += [(naming.resource_content_model(r.name), r.path) for r in spec.resources if r.schema]
    models += [(naming.prompt_arguments_model(p.name), p.path) for p in spec.prompts if p.arguments]
    # Two tools that clash as methods clash as models too; say it once.
    reported = {diagnostic.position for diagnostic in method_clashes}
    problems += [d for d in _unique(models, "model class", source) if d.position not in reported]
    client = naming.client_class(spec.server.name)
    problems += [
        source.error(path, f"{label(path)} becomes the model class '{model}', the name of the generated client", "rename it")
        for model, path in models
        if model == client
    ]
    return problems


def _template_parameters(spec: Spec, template: str | None, path: JsonPath) -> Iterator[Diagnostic]:
    if template is None:
        return
    try:
        variables = template_variables(template)
    except UriTemplateError:
        return  # reported by the resource checks
    seen: dict[str, str] = {}
    for variable in variables:
        parameter = naming.parameter(variable)
        if parameter in seen:
            yield spec.source.error(
                path + ("uriTemplate",),
                f"uriTemplate variables '{seen[parameter]}' and '{variable}' both become the parameter '{parameter}'",
                "rename one of them",
                at_value=True,
            )
        seen.setdefault(parameter, variable)
