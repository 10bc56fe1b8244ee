"""The one place a command hook's answer fails open, for every host that answers hooks.

A hook must never wedge the agent's session: unusable input gets a one-line notice, and any
other error is journalled and answered with a notice that lets the agent go on. Claude Code,
Codex CLI and Gemini CLI differ in how they read a payload and which folder is the project;
this wrapper is the same for all three, so a fix to it reaches every host.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from goalkeeper.config import Config, load_config
from goalkeeper.core.messages import render


class _Hook(Protocol):
    @property
    def session_id(self) -> str: ...


H = TypeVar("H", bound=_Hook)


class HostInputError(ValueError):
    """The hook input cannot be used; the message says what was wrong with it."""


def answer_failing_open(
    raw: bytes,
    env: Mapping[str, str],
    cwd: str,
    *,
    parse: Callable[[bytes], H],
    project_of: Callable[[H | None], Path],
    answer: Callable[[H, Path, Config, Mapping[str, str]], dict[str, Any]],
    settings_env: Callable[[H, Path], Mapping[str, str]] | None = None,
) -> tuple[dict[str, Any], Config | None]:
    """``answer``'s JSON for one hook payload, and the config used (None when the input was
    unusable). Never raises.

    ``settings_env`` gives the environment goalkeeper's settings are read from, where a host
    adds files the agent can write to the hook's environment (Gemini's project ``.env``)."""
    lang: Any = "en"
    hook: H | None = None
    config: Config | None = None
    try:
        hook = parse(raw)
        project = project_of(hook)
        if not project.is_dir():  # a made-up cwd: nothing is created for it
            raise HostInputError(f"the project folder {str(project)[:200]} does not exist")
        if settings_env is not None:
            env = settings_env(hook, project)
        config = load_config(project, env)
        lang = config.lang if config.lang != "auto" else "en"
        return answer(hook, project, config, env), config
    except HostInputError as exc:
        return {"systemMessage": render(lang, "hook.bad_input", problem=str(exc))}, config
    except Exception as exc:  # the only broad except on a hook's path: fail open
        journal_internal_error(project_of(hook), hook.session_id if hook else None, exc)
        text = render(lang, "hook.internal_error", error=f"{type(exc).__name__}: {exc}")
        return {"systemMessage": text}, config


def unused_event(
    event: str, used: Sequence[str], documented: frozenset[str]
) -> dict[str, Any] | None:
    """The answer to an event goalkeeper does not handle: nothing to say for one the host
    documents (``documented``), a notice for one nobody knows; None for an event it uses."""
    if event in used:
        return None
    if event in documented:
        return {}
    return {"systemMessage": render("en", "hook.unknown_event", event=event[:80])}


def stored_host_state(store: Any, session_id: str) -> dict[str, Any]:
    """The session's host bookkeeping as last saved (``{}`` for a new session or project), read
    before the event's transaction: what a host needs to turn a payload into events."""
    from goalkeeper.store.sessions import get_session

    if not store.exists():
        return {}
    row = get_session(store.connection(), session_id)
    return dict(row.host_state) if row else {}


def add_start_notices(
    answer: dict[str, Any],
    config: Config,
    notes: Sequence[tuple[str, Mapping[str, object]]],
    *extra: str | None,
    state_dir: Path | None = None,
) -> dict[str, Any]:
    """At a session's start, what the user should know once beside the guards' answer: the
    configuration's warnings, the host's own (``extra``), the transport's ``notes`` (catalog
    keys and fields) and, from the project's ``state_dir``, where its state was moved
    (``store.legacy``), appended to ``systemMessage``. The same for every command-hook host."""
    if state_dir is not None:
        from goalkeeper.store.legacy import take_notice

        moved = take_notice(state_dir)
        notes = [*notes, moved] if moved is not None else notes
    said = [  # a seed-format warning names goalkeeper itself ("[goalkeeper] …")
        w if w.startswith("[goalkeeper]") else render("en", "config.warning", warning=w)
        for w in config.warnings
    ]
    said += [text for text in extra if text]
    lang = config.lang if config.lang != "auto" else "en"
    said += [render(lang, key, **fields) for key, fields in notes]
    if said:
        answer["systemMessage"] = "\n".join(filter(None, (answer.get("systemMessage"), *said)))
    return answer


def journal_internal_error(project: Path, session_id: str | None, exc: BaseException) -> None:
    """Best effort: record an internal error in the journal; never raises."""
    try:
        import time
        import traceback

        from goalkeeper.store import journal
        from goalkeeper.store.db import Store

        store = Store(project)
        if not store.exists():  # a project goalkeeper never saw: nothing is made for it
            return
        data = {
            "error": type(exc).__name__,
            "message": str(exc)[:500],
            "traceback": traceback.format_exc(limit=8)[-4000:],
        }
        with store.transaction() as conn:
            journal.append(conn, session_id, time.time(), "error", data)
        store.close()
    except Exception:
        pass
