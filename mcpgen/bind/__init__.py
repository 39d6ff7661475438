"""Stage 7, bind: the IR and its models -> the generated Python API, as frozen data.

`bind(api, index, model_modules)` decides every method, parameter, type, import, binding
and module scope of the generated package once, in a frozen `PythonApi`; templates print
it, `mcpgen diff` compares two of them, and the manifest keeps its Handlers methods.
"""

from __future__ import annotations

from mcpgen.bind.api import Binding, Method, Parameter, PythonApi
from mcpgen.bind.binder import bind
from mcpgen.bind.types import TypeRef
from mcpgen.names.module_names import Scope

__all__ = ["Binding", "Method", "Parameter", "PythonApi", "Scope", "TypeRef", "bind"]
