"""The servers the serving benchmark compares: one tool with ten arguments (strings with
patterns, enums, bounded numbers, an array, a nested object) and an object result, served

  - by the package mcpgen generates from TEN_ARGUMENT_SPEC (arguments checked against the
    spec's schema and parsed into models, the result checked against the outputSchema);
  - by the SDK's `MCPServer`, the same tool as a `@server.tool()` function with
    pydantic-typed arguments and a pydantic result (validated by the SDK);
  - by a bare low-level `Server` that validates nothing;

all computing the same answer (`find_offers`). Also, for the cold-start test, a hello-world
`MCPServer`, any generated package served with stub handlers, and a bare low-level
`Server` listing that package's tools. Run as a script it serves one of them over stdio:

    python benchmarks/servers.py hello
    python benchmarks/servers.py generated PACKAGE_PARENT PACKAGE
    python benchmarks/servers.py bare-listing PACKAGE_PARENT PACKAGE
    python benchmarks/servers.py flights|flights-unfrozen PACKAGE_PARENT  (the generated tool)
    python benchmarks/servers.py sdk|bare

The `*_http_app` functions are uvicorn factories (`--factory`); the generated one reads the
package's parent folder from BENCH_PACKAGE_PARENT.

Imports of the SDK and of generated code stay inside the functions, so that a cold start
pays only for what its server needs.
"""

# No `from __future__ import annotations`: MCPServer reads the tool function's annotations,
# which name classes local to `sdk_server`.
import importlib
import json
import os
import sys
from typing import Any

TOOL = "search_flights"
PACKAGE = "flights_bench"

TEN_ARGUMENT_SPEC = f"""\
mcpgen: 1
server: {{name: flights-bench, version: 1.0.0, package: {PACKAGE}}}
tools:
  {TOOL}:
    description: Finds flight offers for a trip.
    inputSchema:
      type: object
      properties:
        origin: {{type: string, pattern: "^[A-Z]{{3}}$", description: IATA airport code.}}
        destination: {{type: string, pattern: "^[A-Z]{{3}}$", description: IATA airport code.}}
        date: {{type: string, pattern: "^\\\\d{{4}}-\\\\d{{2}}-\\\\d{{2}}$", minLength: 10, maxLength: 10}}
        cabin: {{type: string, enum: [economy, premium, business, first], default: economy}}
        adults: {{type: integer, minimum: 1, maximum: 9}}
        children: {{type: integer, minimum: 0, maximum: 9, default: 0}}
        max_price: {{type: number, exclusiveMinimum: 0, maximum: 100000}}
        currency: {{type: string, enum: [EUR, USD, GBP], default: EUR}}
        airlines:
          type: array
          items: {{type: string, pattern: "^[A-Z0-9]{{2}}$"}}
          maxItems: 5
        preferences:
          type: object
          properties:
            nonstop: {{type: boolean, default: false}}
            max_stops: {{type: integer, minimum: 0, maximum: 3}}
            seat: {{type: string, enum: [aisle, window, any], default: any}}
          additionalProperties: false
      required: [origin, destination, date, adults, max_price]
      additionalProperties: false
    outputSchema:
      type: object
      properties:
        offers:
          type: array
          items:
            type: object
            properties:
              id: {{type: string}}
              airline: {{type: string}}
              price: {{type: number, minimum: 0}}
              currency: {{type: string, enum: [EUR, USD, GBP]}}
              stops: {{type: integer, minimum: 0}}
            required: [id, airline, price, currency, stops]
            additionalProperties: false
        count: {{type: integer, minimum: 0}}
      required: [offers, count]
      additionalProperties: false
"""

ARGUMENTS: dict[str, Any] = {
    "origin": "CDG",
    "destination": "JFK",
    "date": "2026-09-14",
    "cabin": "business",
    "adults": 2,
    "children": 1,
    "max_price": 4200.0,
    "currency": "EUR",
    "airlines": ["AF", "DL", "UA"],
    "preferences": {"nonstop": False, "max_stops": 1, "seat": "aisle"},
}


def find_offers(origin: str, destination: str, max_price: float, currency: str, airlines: list[str], max_stops: int) -> list[dict[str, Any]]:
    """The tool's business logic, the same for every server: three offers, cheapest first."""
    offers = []
    for index, airline in enumerate(airlines or ["AF", "LH", "BA"]):
        price = round(max_price * (0.55 + 0.1 * index), 2)
        stops = min(index, max_stops)
        offers.append({"id": f"{origin}-{destination}-{airline}-{index}", "airline": airline, "price": price, "currency": currency, "stops": stops})
    return offers[:3]


# --- the generated server ---------------------------------------------------------------------


def _import_package(parent: str, package: str) -> Any:
    if parent not in sys.path:
        sys.path.insert(0, parent)
    return importlib.import_module(package)


def flight_handlers(generated: Any) -> Any:
    """The ten-argument tool's Handlers, for the generated package `generated` (imported)."""

    class Flights(generated.Handlers):  # type: ignore[misc, name-defined]
        async def search_flights(self, args: Any, ctx: Any) -> Any:
            preferences = args.preferences
            offers = find_offers(
                args.origin, args.destination, args.max_price, args.currency, args.airlines or [],
                preferences.max_stops if preferences and preferences.max_stops is not None else 3,
            )  # fmt: skip
            return generated.SearchFlightsOutput(offers=offers, count=len(offers))

    return Flights()


def generated_server(parent: str, package: str = PACKAGE) -> Any:
    """The generated ten-argument server (TEN_ARGUMENT_SPEC built into `parent`/`package`)."""
    generated = _import_package(parent, package)
    return generated.create_server(flight_handlers(generated))


def stub_handlers(generated: Any) -> Any:
    """A Handlers instance for any generated package, every method a stub (for listing)."""

    async def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    methods = dict.fromkeys(generated.Handlers.__abstractmethods__, stub)
    return type("StubHandlers", (generated.Handlers,), methods)()


# --- the SDK's MCPServer ---------------------------------------------------------------------


def sdk_server() -> Any:
    """The same tool on `MCPServer`: pydantic-typed arguments and result."""
    from typing import Annotated, Literal

    from mcp.server import MCPServer
    from pydantic import BaseModel, ConfigDict, Field

    Currency = Literal["EUR", "USD", "GBP"]

    class Preferences(BaseModel):
        model_config = ConfigDict(extra="forbid")
        nonstop: bool = False
        max_stops: Annotated[int, Field(ge=0, le=3)] | None = None
        seat: Literal["aisle", "window", "any"] = "any"

    class Offer(BaseModel):
        model_config = ConfigDict(extra="forbid")
        id: str
        airline: str
        price: Annotated[float, Field(ge=0)]
        currency: Currency
        stops: Annotated[int, Field(ge=0)]

    class Offers(BaseModel):
        model_config = ConfigDict(extra="forbid")
        offers: list[Offer]
        count: Annotated[int, Field(ge=0)]

    server = MCPServer("flights-sdk", version="1.0.0")

    @server.tool(name=TOOL, description="Finds flight offers for a trip.")
    def search_flights(
        origin: Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="IATA airport code.")],
        destination: Annotated[str, Field(pattern=r"^[A-Z]{3}$", description="IATA airport code.")],
        date: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", min_length=10, max_length=10)],
        adults: Annotated[int, Field(ge=1, le=9)],
        max_price: Annotated[float, Field(gt=0, le=100000)],
        cabin: Literal["economy", "premium", "business", "first"] = "economy",
        children: Annotated[int, Field(ge=0, le=9)] = 0,
        currency: Currency = "EUR",
        airlines: Annotated[list[Annotated[str, Field(pattern=r"^[A-Z0-9]{2}$")]], Field(max_length=5)] | None = None,
        preferences: Preferences | None = None,
    ) -> Offers:
        max_stops = preferences.max_stops if preferences and preferences.max_stops is not None else 3
        offers = find_offers(origin, destination, max_price, currency, airlines or [], max_stops)
        return Offers(offers=[Offer(**offer) for offer in offers], count=len(offers))

    return server


def hello_server() -> Any:
    """Hello world on `MCPServer`: the floor for a cold start."""
    from mcp.server import MCPServer

    server = MCPServer("hello")

    @server.tool()
    def hello(name: str) -> str:
        return f"Hello, {name}!"

    return server


# --- a bare low-level Server -----------------------------------------------------------------


def bare_server() -> Any:
    """The same tool on the low-level `Server`, validating nothing: the floor."""
    import mcp_types as types
    import yaml
    from mcp.server.lowlevel import Server

    schema = yaml.safe_load(TEN_ARGUMENT_SPEC)["tools"][TOOL]
    tool = types.Tool(name=TOOL, input_schema=schema["inputSchema"], output_schema=schema["outputSchema"])

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        preferences = arguments.get("preferences") or {}
        offers = find_offers(
            arguments["origin"], arguments["destination"], arguments["max_price"], arguments.get("currency", "EUR"),
            arguments.get("airlines") or [], preferences.get("max_stops", 3),
        )  # fmt: skip
        result = {"offers": offers, "count": len(offers)}
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(result))], structured_content=result)

    def input_schema(name: str) -> dict[str, Any] | None:
        return tool.input_schema if name == TOOL else None

    return Server(
        "flights-bare", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=input_schema
    )


def bare_listing_server(parent: str, package: str) -> Any:
    """A bare low-level `Server` listing a generated package's tools, as a hand-written
    server would: read from its schema.json with `json`, made into `Tool` models once at
    start. Only `tools/list` is served. The cold-start floor for serving those tools."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    with open(os.path.join(parent, package, "schema.json"), encoding="utf-8") as file:
        listed = json.load(file)["tools/list"]["tools"]
    tools = [types.Tool.model_validate(tool) for tool in listed]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    return Server(f"{package}-bare", version="1.0.0", on_list_tools=list_tools)


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


# --- ASGI apps for uvicorn (--factory), all stateless Streamable HTTP with the same settings ---


def generated_http_app() -> Any:
    generated = _import_package(os.environ["BENCH_PACKAGE_PARENT"], PACKAGE)
    return generated.create_app(flight_handlers(generated), stateless=True)


def sdk_http_app() -> Any:
    return sdk_server().streamable_http_app(stateless_http=True)


def bare_http_app() -> Any:
    return bare_server().streamable_http_app(stateless_http=True)


def main() -> None:
    kind, *rest = sys.argv[1:]
    if kind == "hello":
        hello_server().run()
    elif kind == "generated":
        parent, package = rest
        generated = _import_package(parent, package)
        generated.run(stub_handlers(generated), [])
    elif kind == "bare-listing":
        import anyio

        parent, package = rest
        anyio.run(_serve_stdio, bare_listing_server(parent, package))
    elif kind == "flights":  # the ten-argument tool, generated, as its `run` serves it
        (parent,) = rest
        generated = _import_package(parent, PACKAGE)
        generated.run(flight_handlers(generated), [])
    elif kind == "flights-unfrozen":  # the same, its start left to the collector (no gc.freeze)
        import anyio

        (parent,) = rest
        server = generated_server(parent)
        serving = importlib.import_module(f"{PACKAGE}._runtime.serving")
        anyio.run(serving.serve_stdio, server)
    elif kind == "sdk":
        sdk_server().run()
    elif kind == "bare":
        import anyio

        anyio.run(_serve_stdio, bare_server())
    else:
        raise SystemExit(f"unknown server {kind!r}: see the docstring")


if __name__ == "__main__":
    main()
