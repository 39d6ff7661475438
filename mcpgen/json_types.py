"""The type of a JSON value as the generator holds it: a spec's schemas and values, as read
from YAML or JSON and walked by the checks, the IR, lint, diff and import. It is `Any`
because those walkers index and compare values of every shape, where a recursive union
would need a cast at every step; the name says what is meant. (The runtime, copied into
generated packages, imports nothing from mcpgen and keeps its own.)"""

from typing import Any

Json = Any
