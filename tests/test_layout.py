"""The rooms of ``src/goalkeeper`` stay readable (issue 24; ``docs/ARCHITECTURE.md``).

- Each agent host is one folder under ``hosts/`` that imports no other host's folder: what
  several hosts share lives in ``hosts/command_hooks`` (which imports no host folder), and only
  the rooms that route an event to its host (``transport``, ``mcp``) name host folders.
- No circle of imports inside ``engine/``, ``hosts/`` or ``cli/`` (a lazy import counts: it is
  the same dependency, paid later).
- The layers ``cli → hosts → engine → guards → store → core`` have no arrow back up.

An AST scan of the sources, so nothing is imported to check it. ``tests/test_layers.py`` holds
the stricter per-layer rules (what core and guards may import, no I/O in them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "goalkeeper"
HOST_FOLDERS = ("claude", "codex", "gemini", "pi")
SHARED_HOST_ROOMS = ("command_hooks",)
"""Rooms every host may use, and which may therefore use no host."""
LAYERS = ("core", "store", "guards", "engine", "hosts", "cli")
"""Bottom to top: a module may import its own layer and the layers below it."""
NO_CIRCLES = ("engine", "hosts", "cli")


def module_names() -> dict[str, Path]:
    names: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


MODULES = module_names()


def _resolve(name: str) -> str | None:
    """The goalkeeper module ``name`` is, or lies in (``a.b.func`` → ``a.b``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> Iterator[tuple[str, int]]:
    """Every goalkeeper module ``module`` imports, at any depth of its code, with the line."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            if target.startswith("goalkeeper"):
                found = _resolve(target)
                if found and found != module and found != "goalkeeper":
                    yield found, node.lineno
                    break


def room(module: str, depth: int) -> str | None:
    """The room of ``module`` at ``depth`` (1: its layer; 2: the folder inside it)."""
    parts = module.split(".")
    return parts[depth] if len(parts) > depth else None


@pytest.mark.parametrize("host", HOST_FOLDERS)
def test_each_host_is_one_folder_that_imports_no_other_host(host: str) -> None:
    """``hosts/<host>/`` exists and none of its modules imports another host's folder."""
    folder = PACKAGE / "hosts" / host
    assert (folder / "__init__.py").is_file(), f"hosts/{host}/ is not a package"
    others = {f"goalkeeper.hosts.{h}" for h in HOST_FOLDERS if h != host}
    for module in sorted(m for m in MODULES if m.startswith(f"goalkeeper.hosts.{host}.")):
        for target, line in imports_of(module):
            owner = ".".join(target.split(".")[:3])
            assert owner not in others, f"{module}:{line} imports {target}"


def test_what_hosts_share_imports_no_host() -> None:
    """``hosts/command_hooks`` is the library of the hosts: none of them is its dependency."""
    hosts = {f"goalkeeper.hosts.{h}" for h in HOST_FOLDERS}
    for shared in SHARED_HOST_ROOMS:
        for module in sorted(m for m in MODULES if m.startswith(f"goalkeeper.hosts.{shared}")):
            for target, line in imports_of(module):
                assert ".".join(target.split(".")[:3]) not in hosts, (
                    f"{module}:{line} imports {target}"
                )


def test_the_hook_client_names_a_translator_in_each_host_folder() -> None:
    """``goalkeeper hook <host>`` imports the module ``HOSTS`` names: it lives in its folder."""
    from goalkeeper.hosts.hook_channel import HOSTS

    for host, module in HOSTS.items():
        assert module in MODULES, module
        assert module.startswith(f"goalkeeper.hosts.{host}."), module


def graph_of(nodes: set[str]) -> dict[str, list[str]]:
    """Each module's imports among ``nodes``."""
    return {n: sorted({t for t, _ in imports_of(n)} & nodes) for n in nodes}


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    nodes = set(graph)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(graph[node]):
                work.append((node, i + 1))
                nxt = graph[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


@pytest.mark.parametrize("layer", NO_CIRCLES)
def test_no_circle_of_imports_inside(layer: str) -> None:
    """Within the layer, modules can be read bottom-up: no two of them import each other,
    however indirectly."""
    nodes = {m for m in MODULES if m.startswith(f"goalkeeper.{layer}.")}
    assert _cycles(graph_of(nodes)) == []


def test_the_cycle_finder_finds_circles_of_any_length() -> None:
    """The scan above can fail: a direct circle, a longer one, and none in a chain."""
    assert _cycles({"a": ["b"], "b": ["a"], "c": ["a"]}) == [["a", "b"]]
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": []}) == [["a", "b", "c"]]
    assert _cycles({"a": ["b"], "b": ["c"], "c": []}) == []


def test_layers_have_no_arrow_back_up() -> None:
    """cli → hosts → engine → guards → store → core: a module imports its own layer and the
    ones below it, never one above (``config``, ``testing`` and the data packages are outside
    the layers)."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    for module in sorted(MODULES):
        layer = room(module, 1)
        if layer not in rank:
            continue
        for target, line in imports_of(module):
            other = room(target, 1)
            if other in rank:
                assert rank[other] <= rank[layer], f"{module}:{line} imports {target}"
