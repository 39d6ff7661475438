"""The starter files of `mcpgen init`: a commented spec, and an app with a stub per method."""

from __future__ import annotations

from mcpgen.bind import bind
from mcpgen.ir.model import Api
from mcpgen.models.environment import format_python, render_template
from mcpgen.models.run import render_models
from mcpgen.names import naming
from mcpgen.render.views import PythonView


def render_starter_spec(name: str) -> str:
    return render_template("spec.yaml.jinja", name=name, package=naming.package(name))


def render_app(api: Api) -> str:
    """The starter implementation: a stub for every Handlers method."""
    models = render_models(api, "")  # as the package's build made them (from the cache)
    view = PythonView(api, bind(api, models.index, models.names), models.index)
    return format_python(render_template("app.py.jinja", api=api, view=view))
