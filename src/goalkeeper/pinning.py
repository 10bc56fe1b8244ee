"""Which settings a project file may change on its own, and which need the user's approval
(the ``direnv allow`` model).

``pyproject.toml`` and ``.goalkeeper.toml`` are project files: the agent can write them. A
setting there that would let goalkeeper run another command (``evidence-commands``,
``test-command``), read another catalog, switch confinement or the warm engine, or raise a limit
(``max-continuations``, ``stuck``, timeouts, …) takes effect only once the user has run
``goalkeeper allow``, which records a digest of the file's goalkeeper table in the state
database. A table that changed since then falls back for those settings and says so. A project
file may always make a setting *stricter* without approval, and the cosmetic settings
(language, the no-plan guidance, the plan folder) are always its own. User-level config and the
environment are the user's and are never gated.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

FREE = frozenset({"lang", "no_plan", "plan_dir"})
"""What a project file may set freely: it changes wording or where the agent's own plan lives,
never what goalkeeper runs or how long it lets the agent go on."""

LOWER_IS_STRICTER = frozenset(
    {"stuck", "reset", "max_continuations", "session_mb", "compact_at", "context_window"}
    | {"transcript_tail_kb", "evidence_timeout_s", "server_idle_s", "todo_stall_threshold"}
    | {"todo_quiet_after_ms", "todo_create_threshold", "todo_cooldown_base_ms"}
    | {"retry_base_ms"}
)
"""Limits: a smaller value pauses, re-plans, advises or gives up sooner."""

ORDERED: dict[str, tuple[object, ...]] = {
    "evidence_check": ("off", "files", "rerun"),
    "todos": ("off", "on"),
    "review": ("off", "on"),
    "check_needs_tool": (False, True),
    "plugins": (True, False),
    "server": ("auto", "off"),
    "sandbox": ("off", "auto"),
}
"""Choices from loosest to strictest."""

APPROVAL_ONLY = frozenset({"evidence_commands", "test_command", "catalog"})
"""Settings with no stricter direction: another command or catalog is another thing to run or
read, so only an approved file may set them."""


def needs_approval(name: str) -> bool:
    return name not in FREE


def stricter_or_equal(name: str, new: object, current: object) -> bool:
    """Whether ``new`` asks no more of the user's trust than ``current`` does."""
    if name in FREE:
        return True
    if new == current:
        return True
    if name in LOWER_IS_STRICTER:
        return isinstance(new, int | float) and isinstance(current, int | float) and new < current
    order = ORDERED.get(name)
    if order is not None and new in order and current in order:
        return order.index(new) > order.index(current)
    if name == "evidence_commands":  # fewer commands than the approved ones is stricter
        return isinstance(new, tuple) and isinstance(current, tuple) and set(new) <= set(current)
    return False


def table_digest(table: Mapping[str, Any]) -> str:
    """A digest of a file's goalkeeper table, independent of key order and formatting: the
    rest of pyproject.toml may change without a new approval."""
    import hashlib
    import json

    blob = json.dumps(table, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


def approved_digests(project: Path) -> dict[str, str]:
    """The approved digest of each project config file (by file name); {} when none."""
    from goalkeeper.store.trust import read_config_approvals

    return read_config_approvals(project)


def allow_project(project: Path, now: float) -> dict[str, str]:
    """Approve the project's config files as they are now (``goalkeeper allow``): record the
    digest of each file's goalkeeper table, replacing earlier approvals. Returns what was
    approved (file name → digest); {} when no project file has a goalkeeper table."""
    from goalkeeper.config import project_tables
    from goalkeeper.store.db import Store
    from goalkeeper.store.trust import approve_config

    digests = {path.name: table_digest(table) for path, table in project_tables(project)}
    store = Store(project)
    try:
        with store.transaction() as conn:
            approve_config(conn, digests, now)
    finally:
        store.close()
    return digests
