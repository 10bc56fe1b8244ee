"""Imports point only downward (cli → hosts → engine → guards → core), and core and guards do
no I/O: no sqlite3, subprocess, time, os.environ or open()."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "goalkeeper"
ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "guards": {"core", "guards", "config"},
    "store": {"core", "store"},
    "engine": {"core", "guards", "engine", "store", "config"},
    "hosts": {"core", "engine", "store", "hosts", "config", "__init__"},
}
PURE = ("core", "guards")
FORBIDDEN_MODULES = {"sqlite3", "subprocess", "time", "socket", "shutil", "tempfile"}


def modules(layer: str) -> list[Path]:
    return sorted((SRC / layer).rglob("*.py"))


def imports(path: Path) -> list[tuple[str, ast.AST]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node))
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_imports_point_downward(layer: str) -> None:
    """A layer imports goalkeeper modules only from the layers below it."""
    for path in modules(layer):
        for name, _ in imports(path):
            if name == "goalkeeper":
                continue
            if name.startswith("goalkeeper."):
                target = name.split(".")[1]
                assert target in ALLOWED[layer], f"{path.relative_to(SRC)} imports {name}"


@pytest.mark.parametrize("layer", PURE)
def test_core_and_guards_do_no_io(layer: str) -> None:
    """No database, process, clock, environment or file access in pure layers."""
    for path in modules(layer):
        for name, _ in imports(path):
            assert name.split(".")[0] not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", f"{path.name} calls open()"
            if isinstance(node, ast.Attribute) and node.attr == "environ":
                raise AssertionError(f"{path.name} reads os.environ")


def test_the_hook_client_imports_almost_nothing() -> None:
    """Hooks start a process per event: the client imports only sys and posix at module level
    (os only on Windows, which has no posix), and its channel module (the runtime folder and
    the secret), which imports no more."""
    for module, own in (
        ("hook_client", {"goalkeeper.hosts.hook_channel"}),
        ("hook_channel", set()),
    ):
        tree = ast.parse((SRC / "hosts" / f"{module}.py").read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in top if isinstance(n, ast.ImportFrom)}
        assert names == {"sys", *own}, module
        branches = [
            n for n in tree.body if isinstance(n, ast.If) and "platform" in ast.unparse(n.test)
        ]
        imported = {a.name for b in branches for n in ast.walk(b) if isinstance(n, ast.Import)
                    for a in n.names}  # fmt: skip
        assert imported == {"posix", "os"}, imported
    main = ast.parse((SRC / "__main__.py").read_text(encoding="utf-8"))
    assert {a.name for n in main.body if isinstance(n, ast.Import) for a in n.names} == {"sys"}
