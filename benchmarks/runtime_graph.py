"""The runtime's import graph: which module of mcpgen/runtime imports which, and how.

Usage: python benchmarks/runtime_graph.py [RUNTIME_DIR] [--edges] [--scc] [--up] [--layout] [--json]
(default: --edges --scc --up; RUNTIME_DIR defaults to mcpgen/runtime in this repository).
--layout maps today's modules onto the proposed subpackages of `mcpgen_runtime`
(LAYOUT, ORDER below), lists every edge that runs against ORDER, and checks that once
the edges in FIXES are inverted or moved, no subpackage cycle (TYPE_CHECKING and
function-level imports included) and no module cycle inside a subpackage is left.

Every intra-runtime import is an edge `src -> dst` with a kind:
  top        module level, runs at import
  tc         inside `if TYPE_CHECKING:` (type checkers only; still a cycle for mypy/layout)
  fn         inside a function body (runs on the first call: lazy)
Reads source with `ast` only; imports nothing of the runtime.
"""

from __future__ import annotations

import ast
import json
import sys
from collections import defaultdict
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "mcpgen" / "runtime"


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def edges_of(path: Path, modules: set[str]) -> list[tuple[str, str, int, str, list[str]]]:
    """(src, dst, line, kind, names) for every relative/absolute import of a sibling."""
    src = path.stem
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[str, str, int, str, list[str]]] = []

    def visit(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and is_type_checking(child.test):
                for stmt in child.body:
                    visit_stmt(stmt, "tc" if kind == "top" else kind)
                for stmt in child.orelse:
                    visit_stmt(stmt, kind)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, "fn")
            else:
                visit_stmt(child, kind, recurse=True)

    def visit_stmt(stmt: ast.AST, kind: str, recurse: bool = True) -> None:
        if isinstance(stmt, ast.ImportFrom):
            names = [a.name for a in stmt.names]
            if stmt.level == 1 and stmt.module:  # from .x import y
                dst = stmt.module.split(".")[0]
                if dst in modules:
                    out.append((src, dst, stmt.lineno, kind, names))
            elif stmt.level == 1 and not stmt.module:  # from . import x
                for n in names:
                    if n in modules:
                        out.append((src, n, stmt.lineno, kind, []))
            elif stmt.module and stmt.module.startswith("mcpgen.runtime."):
                dst = stmt.module.split(".")[2]
                out.append((src, dst, stmt.lineno, kind, names))
        elif isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.name.startswith("mcpgen.runtime."):
                    out.append((src, a.name.split(".")[2], stmt.lineno, kind, []))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            visit(stmt, "fn")
        elif isinstance(stmt, ast.If) and is_type_checking(stmt.test):
            for s in stmt.body:
                visit_stmt(s, "tc" if kind == "top" else kind)
            for s in stmt.orelse:
                visit_stmt(s, kind)
        elif recurse:
            visit(stmt, kind)

    visit(tree, "top")
    return out


def tarjan(nodes: list[str], adj: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    sccs: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(adj[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            strong(v)
    return sccs


def back_edges(nodes: list[str], adj: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Edges that 'run back up': an edge u->v where v is an ancestor of u on the DFS stack
    (DFS from each node in sorted order). Their count depends on the DFS order; the SCCs do not."""
    colour: dict[str, int] = {}
    back: list[tuple[str, str]] = []

    def dfs(u: str) -> None:
        colour[u] = 1
        for v in sorted(adj[u]):
            if colour.get(v, 0) == 0:
                dfs(v)
            elif colour[v] == 1:
                back.append((u, v))
        colour[u] = 2

    for n in nodes:
        if colour.get(n, 0) == 0:
            dfs(n)
    return back


# The proposed subpackages (runtime-plan.md, section 2), lowest first.
ORDER = ["common", "core", "server", "tasks", "http", "auth", "redis", "upstream", "app", "client"]
# client sits on common only; it is listed last because nothing imports it.
LAYOUT = {
    "common": "encoding eras",
    "core": "errors log keys limits guard model_ref package_data validation pagination content prompt_templates",
    "server": "context tools resources prompts completions legacy_connections server",
    "tasks": "tasks task_store task_store_common task_store_memory task_quota task_escalation tasks_legacy tasks_modern task_serving",
    "http": "http_guard http_sessions http_param_headers http_health uvicorn_server",
    "auth": "auth_scopes auth_log auth_tokens auth_http auth_introspection auth_introspection_limits auth_verifiers",
    "redis": "redis_link redis_bus task_store_redis task_store_redis_format",
    "upstream": "upstream upstream_names upstream_redirects upstream_requests",
    "app": "serving",
    "client": "client client_auth client_headers client_logs client_sessions client_tasks",
    "facade": "__init__",
}
# Every edge of today's graph that must go, and how (src, dst): fix.
FIXES = {
    ("limits", "task_store"): "TaskLimits moves to core/limits.py (tasks re-exports it)",
    ("tools", "tasks"): "Context.own_deadline (class attribute) replaces isinstance(TASK_CONTEXTS)",
    ("tools", "task_escalation"): "Context.own_deadline, as for tools -> tasks",
    ("server", "task_serving"): "build_server moves to app/build.py; tasks attach through server.attach(...)",
    ("server", "task_store"): "as above (GeneratedServer.task_store becomes the attachment's)",
    ("server", "tasks_legacy"): "the legacy tasks capability comes from the attachment, not a constant imported here",
    ("server", "redis_link"): "use_redis moves to redis/attach.py; build_server (app) makes the link",
    ("server", "redis_bus"): "as above",
    ("task_serving", "redis_link"): "the Redis task store is chosen by redis/attach.py, not by tasks",
    ("task_serving", "task_store_redis"): "as above: ServedTasks.use_store(store) only",
    ("tasks_legacy", "auth_scopes"): "required_scopes' ContextVar moves to core/request_scopes.py (auth sets, tasks read)",
    ("tasks_modern", "auth_scopes"): "as above",
    ("tasks_legacy", "tasks_modern"): "caller()/owner_of() move to tasks/owners.py beside task_quota's PRINCIPAL",
    ("http_health", "redis_link"): "redis_reachable moves to redis/health.py and registers a readiness check",
    # the GeneratedServer circle: a Protocol in server/protocols.py (a leaf) instead
    ("completions", "server"): "server/protocols.py: ServerHandle",
    ("context", "server"): "ServerHandle",
    ("prompts", "server"): "ServerHandle",
    ("resources", "server"): "ServerHandle",
    ("tools", "server"): "ListingServer (ServerHandle + cache_hints, server_info_stamp)",
    ("task_escalation", "server"): "ServerHandle",
    ("tasks", "server"): "ServerHandle",
    ("tasks_legacy", "server"): "ServerHandle",
    ("tasks_modern", "server"): "ListingServer",
    ("task_serving", "server"): "TaskHost (middleware, extensions, lifespan, limits)",
    # inside tasks: tasks.py splits into tasks/model.py (Task, TaskOutcome, errors) and tasks/runner.py
    ("tasks", "task_store"): "runner.py imports store.py downward once model.py is split off",
    ("tasks", "task_store_common"): "RelayListener/TaskSignals move to tasks/signals.py (a leaf)",
    ("task_store", "task_store_common"): "as above",
    ("task_store", "tasks"): "store.py imports model.py, not runner.py",
    ("task_store_common", "tasks"): "imports model.py",
    ("task_store_memory", "tasks"): "imports model.py",
    ("task_store_redis", "tasks"): "imports model.py",
    ("task_store_redis_format", "tasks"): "imports model.py",
}


def layout_report(nodes: list[str], all_edges: list) -> None:
    where = {m: pkg for pkg, mods in LAYOUT.items() for m in mods.split()}
    missing = sorted(set(nodes) - set(where))
    print(f"\n## layout: {len(where)} modules assigned, unassigned: {missing or 'none'}")
    rank = {p: i for i, p in enumerate(ORDER)}
    against = []
    for s, d, ln, k, names in all_edges:
        ps, pd = where[s], where[d]
        if ps != pd and ps != "facade" and rank[ps] < rank[pd]:
            against.append((s, d, ln, k, names))
    print(f"## edges that run against ORDER ({' < '.join(ORDER)}): {len(against)}")
    for s, d, ln, k, names in against:
        fix = FIXES.get((s, d), "NO FIX LISTED")
        print(f"  {where[s]}/{s}.py:{ln} [{k}] -> {where[d]}/{d} ({', '.join(names)}): {fix}")
    kept = [e for e in all_edges if (e[0], e[1]) not in FIXES and e[0] != "__init__"]
    pkg_adj: dict[str, set[str]] = defaultdict(set)
    for s, d, *_ in kept:
        if where[s] != where[d]:
            pkg_adj[where[s]].add(where[d])
    pkgs = sorted(set(where.values()) - {"facade"})
    cyc = [c for c in tarjan(pkgs, {p: pkg_adj[p] for p in pkgs}) if len(c) > 1]
    print(f"## after FIXES: subpackage cycles: {cyc or 'none'}")
    bad = [(a, b) for a in pkgs for b in pkg_adj[a] if rank[a] < rank[b]]
    print(f"## after FIXES: edges against ORDER: {bad or 'none'}")
    for p in ORDER:
        print(f"  {p} -> {', '.join(sorted(pkg_adj[p])) or '-'}")
    mod_adj = {n: set() for n in nodes}
    for s, d, *_ in kept:
        mod_adj[s].add(d)
    left = [c for c in tarjan(nodes, mod_adj) if len(c) > 1]
    print(f"## after FIXES: module cycles left (any kind): {left or 'none'}")
    unused = sorted(set(FIXES) - {(e[0], e[1]) for e in all_edges})
    if unused:
        print(f"## FIXES naming no current edge: {unused}")


def main(argv: list[str]) -> None:
    args = [a for a in argv if not a.startswith("--")]
    flags = {a for a in argv if a.startswith("--")} or {"--edges", "--scc", "--up"}
    if "--layout" in flags and len(flags) == 1:
        root = Path(args[0]) if args else DEFAULT
        files = sorted(p for p in root.glob("*.py"))
        modules = {p.stem for p in files}
        layout_report(sorted(modules), [e for p in files for e in edges_of(p, modules)])
        return
    root = Path(args[0]) if args else DEFAULT
    files = sorted(p for p in root.glob("*.py"))
    modules = {p.stem for p in files}
    all_edges = [e for p in files for e in edges_of(p, modules)]
    nodes = sorted(modules)

    if "--json" in flags:
        print(json.dumps([dict(zip(("src", "dst", "line", "kind", "names"), e, strict=True)) for e in all_edges], indent=1))
        return

    if "--edges" in flags:
        print(f"# {len(files)} modules, {len(all_edges)} intra-runtime imports")
        by_src: dict[str, list] = defaultdict(list)
        for e in all_edges:
            by_src[e[0]].append(e)
        for n in nodes:
            parts = [
                f"{d}:{ln}" + ("" if k == "top" else f"[{k}]")
                for _, d, ln, k, _names in sorted(by_src[n], key=lambda e: e[2])
            ]
            print(f"{n}: {', '.join(parts) or '-'}")

    def graph(kinds: set[str]) -> dict[str, set[str]]:
        adj: dict[str, set[str]] = {n: set() for n in nodes}
        for s, d, _ln, k, _names in all_edges:
            if k in kinds and s != d:
                adj[s].add(d)
        return adj

    if "--up" in flags:
        top = graph({"top"})
        full = graph({"top", "tc", "fn"})

        def reaches(adj: dict[str, set[str]], a: str, b: str) -> bool:
            seen, todo = {a}, [a]
            while todo:
                x = todo.pop()
                if x == b:
                    return True
                for y in adj[x] - seen:
                    seen.add(y)
                    todo.append(y)
            return False

        closing = [e for e in all_edges if e[0] != e[1] and reaches(full, e[1], e[0])]
        against = [e for e in closing if reaches(top, e[1], e[0])]
        print(f"\n## edges inside a cycle (dst reaches src, any kind): {len(closing)}")
        print(f"## of which run back up (dst imports src at run time, transitively): {len(against)}")
        for s, d, ln, k, names in against:
            print(f"  {s}.py:{ln} [{k}] -> {d}  ({', '.join(names)})")

    for label, kinds in (
        ("runtime imports only (top)", {"top"}),
        ("top + TYPE_CHECKING", {"top", "tc"}),
        ("top + TYPE_CHECKING + function-level", {"top", "tc", "fn"}),
    ):
        adj = graph(kinds)
        if "--scc" in flags:
            cyc = [c for c in tarjan(nodes, adj) if len(c) > 1]
            print(f"\n## SCCs with >1 module, {label}: {len(cyc)}")
            for c in cyc:
                print(f"  ({len(c)}) {' '.join(c)}")
        if "--up" in flags:
            back = back_edges(nodes, adj)
            print(f"\n## back edges (DFS, sorted order), {label}: {len(back)}")
            for u, v in back:
                where = [f"{u}.py:{ln}[{k}]" for s, d, ln, k, _ in all_edges if s == u and d == v and k in kinds]
                print(f"  {u} -> {v}   {' '.join(where)}")


if __name__ == "__main__":
    main(sys.argv[1:])
