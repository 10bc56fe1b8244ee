"""``goalkeeper watch --once``: one frame of the project's sessions for scripts and people,
from the same facts as ``status``; spend and budget from the journal's usage/budget entries,
"—" where the host recorded none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goalkeeper.cli.app import run
from goalkeeper.store import journal
from goalkeeper.store.db import Store
from tests.cli.proof_session import SESSION, run_session

USAGE = {
    "host": "claude",
    "model": "claude-sonnet-4-5",
    "input_tokens": 123456,
    "output_tokens": 7890,
    "cache_read_tokens": 1000,
    "cache_write_tokens": 0,
    "usd": 1.234,
    "since_last": {
        "input_tokens": 2000,
        "output_tokens": 100,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "usd": 0.05,
    },
    "changed": False,
}
BUDGET = {"scope": "session", "unit": "usd", "limit": 1.5, "spent": 1.234, "state": "warned"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    run_session(tmp_path)
    return tmp_path


def append(project: Path, kind: str, data: dict[str, object], at: float = 2e9) -> None:
    store = Store(project)
    with store.transaction() as conn:
        journal.append(conn, SESSION, at, kind, data)
    store.close()


def watch(project: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run(["-C", str(project), "watch", *args])
    out, err = capsys.readouterr()
    return code, out + err


LABELS = ("Goal", "Verify", "Open gates", "Todos", "Continued", "Spend", "Budget", "Refused")


def rows(out: str) -> dict[str, str]:
    """The panel's lines by label (``│ Goal   text │``), a wrapped line joined to its label's."""
    found: dict[str, str] = {}
    label = None
    for line in out.splitlines():
        if not line.startswith("│"):
            label = None
            continue
        inner = line.strip("│ ")
        label = next((x for x in (*LABELS, "Verdict") if inner.startswith(x + " ")), label)
        if label is None:
            continue
        if inner.startswith(label + " "):
            found[label] = inner[len(label) :].strip()
        else:
            found[label] += " " + inner.strip()
    return found


def test_once_shows_goal_verify_todos_refusal_and_no_spend(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = watch(project, capsys, "--once")
    assert code == 0
    shown = rows(out)
    assert f"session {SESSION[:12]} claude" in out
    assert shown["Goal"] == "`pytest -q` passes (complete)"
    assert shown["Verify"].startswith("pytest -q → exit 0")
    assert "1 pending" in shown["Todos"] and "refused: #1" in shown["Todos"]
    assert shown["Continued"] == "sent back 2 time(s)"
    assert shown["Refused"].startswith("goal verify failed (round 1)")
    assert shown["Spend"] == shown["Budget"] == shown["Open gates"] == "—"
    assert shown["Verdict"].startswith("proven")


def test_spend_against_budget_from_usage_and_budget_entries(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    append(project, "usage", USAGE)
    append(project, "budget", BUDGET)
    shown = rows(watch(project, capsys, "--once")[1])
    assert shown["Spend"] == (
        "123,456 in, 7,890 out, 1,000 cache tokens, $1.23; last continuation "
        "2,000 in, 100 out tokens, $0.05, nothing changed"
    )
    assert shown["Budget"] == "$1.23 of $1.50 (82%) per session: warned"


def test_open_gates_follow_the_last_close_attempt(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    append(project, "refused", {"gates": ["check", "okr"]})
    shown = rows(watch(project, capsys, "--once")[1])
    assert shown["Open gates"] == "check, okr"
    assert shown["Refused"].startswith("close refused: gate(s) open: check, okr")
    append(project, "closed", {"gates": ["check", "okr", "map"]}, at=2e9 + 1)
    assert rows(watch(project, capsys, "--once")[1])["Open gates"] == "all passed"


def test_once_json_is_the_frame_data(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    append(project, "usage", USAGE)
    code, out = watch(project, capsys, "--once", "--json")
    frame = json.loads(out)
    assert code == 0 and frame["version"] == 1 and frame["last_id"] > 0
    (s,) = frame["sessions"]
    assert s["session_id"] == SESSION and s["spend"]["usage"] == USAGE
    assert s["spend"]["budget"] is None and s["open_gates"] is None
    assert s["last_verify"]["passed"] is True and s["verdict"]["state"] == "proven"
    assert s["last_refusal"]["kind"] == "goal_failed"


def test_json_without_once_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = watch(project, capsys, "--json")
    assert code == 2 and "--json needs --once" in out


def test_sessions_newest_first_and_session_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = "9a9a9a9a-0000-4000-8000-000000000000"
    run_session(tmp_path)
    run_session(tmp_path, other)
    _, out = watch(tmp_path, capsys, "--once", "--sessions", "1")
    assert out.count("╭─ session") == 1
    _, out = watch(tmp_path, capsys, "--once", "--session", SESSION[:6])
    assert f"session {SESSION[:12]}" in out and other[:12] not in out
    code, _ = watch(tmp_path, capsys, "--once", "--session", "nope")
    assert code == 4


def test_no_session_yet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = watch(tmp_path, capsys, "--once")
    assert code == 0 and "has not seen a session here yet" in out
    assert not Store(tmp_path).exists()


def test_agent_text_is_never_console_markup_or_escapes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A todo subject is the agent's: rich markup in it is shown, not obeyed."""
    append(project, "todo_refused", {"id": 1, "reason": "[bold red]boom[/] \x1b[2J"})
    _, out = watch(project, capsys, "--once")
    assert "[bold red]boom[/]" in rows(out)["Refused"]
    assert "\x1b" not in out


def test_a_shown_id_is_always_a_unique_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two ids sharing the short prefix are shown whole, as ``status`` shows them."""
    twin = SESSION[:12] + "-twin"
    run_session(tmp_path)
    run_session(tmp_path, twin)
    _, out = watch(tmp_path, capsys, "--once")
    assert f"session {SESSION} " in out and f"session {twin} " in out
