"""One resolved, frozen configuration: defaults → user file → project files → environment →
flags.

The user file is ``~/.config/goalkeeper/config.toml`` (``$XDG_CONFIG_HOME``; the environment
variable ``GOALKEEPER_USER_CONFIG`` names another). Project files: ``[tool.goalkeeper]`` in
``pyproject.toml``, then ``.goalkeeper.toml`` (its top level or its own ``[tool.goalkeeper]``
table). Environment: ``GOALKEEPER_<NAME>`` for every field. Keys may be written ``compact-at`` or
``compact_at``. An invalid value never crashes anything: it is reported in ``Config.warnings``
and the previous layer's value stays.

Project files are the agent's to write, so a setting there that could widen what goalkeeper
runs or loosen a limit applies only once the user approved the file (``goalkeeper allow``;
``pinning`` says which settings and which direction is stricter). Until then it is reported in
``Config.warnings`` and ``Config.held`` and the value of the layers below stays.

The environment is passed in, never read here, so a hook server can resolve the config of each
request from the environment of the hook process that sent it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct
from msgspec.structs import replace

LangSetting = Literal["auto", "en", "zh"]
NoPlan = Literal["guide", "silent"]
ServerMode = Literal["auto", "off"]
OnOff = Literal["on", "off"]
EvidenceCheck = Literal["off", "files", "rerun"]
Sandbox = Literal["off", "auto"]


class Config(Struct, frozen=True):
    lang: LangSetting = "auto"
    """Language of what goalkeeper says: auto follows the plan, then the user's words."""
    plan_dir: str = "plan"
    """Folder holding plan/<topic>.md, relative to the project."""
    no_plan: NoPlan = "guide"
    """With no plan file: guide the model once per session, or stay silent."""
    stuck: int = 3
    """Rounds in a row without a tool call before a compact-and-re-plan reset."""
    reset: int = 2
    """Compact-and-re-plan resets before goalkeeper pauses."""
    compact_at: float = 0.8
    """Fraction of the context window above which state is saved before compaction."""
    context_window: int = 200_000
    """Context window of the model, in tokens."""
    session_mb: float = 50.0
    """Transcript size above which goalkeeper pauses and suggests a new session."""
    max_continuations: int = 40
    """Automatic continuations in a row (since the last real user message) before pausing."""
    check_needs_tool: bool = True
    """A [PDCA] check counts only if a verification ran and finished in its round (a test
    runner or a declared command, read from what the host recorded). Off: a reported check
    counts without one; a project file that turns it off counts only once the user approved it."""
    transcript_tail_kb: int = 1024
    """Most transcript bytes a Stop hook reads when it has no remembered offset."""
    server: ServerMode = "auto"
    """Hook commands hand events to a warm engine process (auto) or handle them in-process (off)."""
    server_idle_s: float = 900.0
    """Seconds without a request after which the warm engine process exits."""
    plugins: bool = False
    """Load third-party guards from the ``goalkeeper.guards`` entry points."""
    todos: OnOff = "on"
    """Todo obligations: evidence to complete a todo, tree integrity, advice, the settle duty."""
    todo_stall_threshold: float = 3.0
    """Rounds with an unchanged number of open todos before a re-examination (PI_TODONE_*)."""
    todo_quiet_after_ms: float = 120_000.0
    """No todo advice while the last real user message is younger than this."""
    todo_create_threshold: float = 200.0
    """Tool calls in one unit, with no todo at all, before the creation duty."""
    todo_cooldown_base_ms: float = 60_000.0
    """Backoff between todo advice: min(600 s, base × 2^n)."""
    review: OnOff = "on"
    """When a goal is proven or a test-gated todo completes, ask the agent once to have a fresh
    reviewer check the change against the goal (seed 002's verification duty); off: never.
    Turning it off loosens the proof, so a project file does that only once approved."""
    retry_base_ms: float = 4000.0
    """First delay of the API-error retries, doubling up to 150 × it: 10 retries ≈ 37 min at
    the default (seed 001 §5, ``core.goals.retry``). A smaller value retries and gives up
    sooner, so a project file or an agent's shell may lower it, never raise it."""
    evidence_check: EvidenceCheck = "rerun"
    """Check completion evidence: off, files (claimed file changes), rerun (also re-run the
    test command of a test-gated todo, if it is an allowed evidence command)."""
    evidence_commands: tuple[str, ...] = ()
    """Commands goalkeeper may re-run as evidence (a claimed command must start with one)."""
    test_command: str | None = None
    """The project's test command; inferred from the project files when not set."""
    evidence_timeout_s: float = 120.0
    """Timeout of a re-run evidence command; a timeout counts as a failure."""
    catalog: str = ""
    """A user workflow catalog (a JSON file, relative to the project); empty: built-in only.
    It extends or overrides the built-in catalog; its procedure texts live in procedures/ next
    to it. Check it with ``goalkeeper catalog check``."""
    sandbox: Sandbox = "off"
    """Confine verify and evidence commands with bubblewrap where it is installed (auto): no
    network, writes only in the project and a temporary folder."""
    warnings: tuple[str, ...] = ()
    held: tuple[str, ...] = ()
    """Project settings not applied because the file holding them is not approved (names)."""
    sources: tuple[tuple[str, str], ...] = ()
    """Where each setting that is not a default came from (setting, layer), so ``goalkeeper
    config`` can show why a value is what it is: the hook and the command resolve alike."""
    user_file: str = ""
    """The user's own config file this configuration read (or would read): trusted, so no
    tool of the agent may write it."""
    state_home: str = ""
    """goalkeeper's folder in the user's state (copies of goals' tests): no tool of the agent
    may write it either."""
    config_home: str = ""
    """goalkeeper's folder in the user's config (``locations.config_home``)."""
    runtime_dir: str = ""
    """The folder of the warm engine's socket (``hook_client.runtime_dir``)."""
    home: str = ""
    """The user's home folder, which ``~`` and ``$HOME`` name on an agent's shell line."""

    @property
    def idle_streak(self) -> int:
        """The most continuations in a row without a tool call before goalkeeper pauses: the
        stuck rule re-plans every ``stuck`` idle rounds, ``reset`` times, then pauses."""
        return self.stuck * (self.reset + 1) - 1

    def to_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in _FIELDS}

    # Two configurations are equal when they set the same values, wherever those came from.
    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in _COMPARED)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Config):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())


ENV_PREFIX = "GOALKEEPER_"
_CHOICES: dict[str, tuple[str, ...]] = {
    "lang": ("auto", "en", "zh"),
    "no_plan": ("guide", "silent"),
    "server": ("auto", "off"),
    "todos": ("on", "off"),
    "review": ("on", "off"),
    "evidence_check": ("off", "files", "rerun"),
    "sandbox": ("off", "auto"),
}
# pi-todone's own variable names keep working (at the environment layer, below GOALKEEPER_*).
ENV_ALIASES = {
    "PI_TODONE_STALL_THRESHOLD": "todo_stall_threshold",
    "PI_TODONE_QUIET_AFTER_MS": "todo_quiet_after_ms",
    "PI_TODONE_CREATE_THRESHOLD": "todo_create_threshold",
    "PI_TODONE_COOLDOWN_BASE_MS": "todo_cooldown_base_ms",
}
_MINIMUM: dict[str, float] = {
    "stuck": 1,
    "reset": 0,
    "context_window": 1000,
    "max_continuations": 1,
    "transcript_tail_kb": 16,
    "server_idle_s": 1,
    "todo_stall_threshold": 0,
    "todo_quiet_after_ms": 0,
    "todo_create_threshold": 0,
    "todo_cooldown_base_ms": 0,
    "retry_base_ms": 0,
    "evidence_timeout_s": 1,
}
MAX_CONFIG_BYTES = 1024 * 1024  # a pyproject.toml is a few KB; beyond this it is not one
_META = (
    "warnings",
    "held",
    "sources",
    "user_file",
    "state_home",
    "config_home",
    "runtime_dir",
    "home",
)
_PLACES = ("user_file", "state_home", "config_home", "runtime_dir", "home")
_FIELDS = tuple(name for name in Config.__struct_fields__ if name not in _META)
_COMPARED = tuple(
    name for name in Config.__struct_fields__ if name != "sources" and name not in _PLACES
)
_toml_cache: dict[tuple[str, int, int], dict[str, Any]] = {}


def load_config(
    project: Path,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, object] | None = None,
) -> Config:
    """Resolve the configuration of ``project``; never raises."""
    warnings: list[str] = []
    values: dict[str, object] = {}
    origin: dict[str, str] = {}
    agent = env.agent if isinstance(env, AgentEnv) else ""
    if agent and env is not None and env.get(USER_CONFIG_VAR, "").strip():
        warnings.append(_agent_warning(USER_CONFIG_VAR, agent))
    user = user_config_path({} if agent else (env or {}))
    data = _read_toml(user, warnings, confined=False)
    if data is not None:
        nested = (
            data.get("tool", {}).get("goalkeeper") if isinstance(data.get("tool"), dict) else None
        )
        table = nested if isinstance(nested, dict) else data
        _apply(values, table, "user config", warnings, origin=origin)
    held: list[str] = []
    approved: dict[str, str] | None = None
    for path, table in _file_tables(project, warnings):
        gate = _Gate(path.name, table, project, approved)
        _apply(values, table, str(path.name), warnings, gate=gate, origin=origin)
        approved = gate.approved
        held += gate.held
        if gate.held:
            warnings.append(gate.warning())
    invalid_aliases: list[tuple[str, str, object]] = []
    if env:
        looser: list[str] = []
        for name, setting in ENV_ALIASES.items():
            if name in env:
                before = values.get(setting, getattr(Config(), setting))
                _apply_alias(values, name, setting, env[name], origin, invalid_aliases)
                if agent and not _stricter(setting, values.get(setting, before), before):
                    values[setting] = before  # only stricter from the agent's shell
                    origin.pop(setting, None)
                    looser.append(name)
        env_values = {
            k[len(ENV_PREFIX) :].lower(): v
            for k, v in env.items()
            if k.startswith(ENV_PREFIX) and k[len(ENV_PREFIX) :].lower() in _FIELDS
        }
        shell = _AgentGate(agent) if agent else None
        _apply(values, env_values, "environment", warnings, ENV_PREFIX, gate=shell, origin=origin)
        looser += shell.held if shell is not None else []
        warnings += [_agent_warning(name, agent) for name in looser]
        warnings += [_agent_warning(name, agent) for name in getattr(env, "dropped", ())]
    if overrides:
        _apply(values, dict(overrides), "command line", warnings, origin=origin)
    lang = values.get("lang", "auto")
    warnings += [_alias_warning(lang, *entry) for entry in invalid_aliases]
    meta = {
        "warnings": tuple(warnings),
        "held": tuple(held),
        "sources": tuple((name, origin[name]) for name in _FIELDS if name in origin),
        "user_file": str(user),
        **_places(),
    }
    return replace(Config(), **values, **meta)


def _apply_alias(
    values: dict[str, object],
    name: str,
    setting: str,
    raw: str,
    origin: dict[str, str],
    invalid: list[tuple[str, str, object]],
) -> None:
    """One of pi-todone's own variables (seed 002 §10): a valid value applies; an invalid one
    keeps the value in force and is told in the seed's own words (``_alias_warning``)."""
    current = values.get(setting, getattr(Config(), setting))
    try:
        values[setting] = _coerce(setting, raw, getattr(Config(), setting))
    except ValueError:
        invalid.append((name, raw, current))
        return
    origin[setting] = f"environment ({name})"


def _alias_warning(lang: object, name: str, raw: str, kept: object) -> str:
    """The seed's warning for an invalid variable: the raw value JSON-quoted, a blank one said
    so, the number in force written as JavaScript would (``3``, not ``3.0``)."""
    import json

    from goalkeeper.core.messages import render
    from goalkeeper.core.todos.tree import js_str

    key = "todo.env.blank" if not raw.strip() else "todo.env.invalid"
    quoted = json.dumps(raw, ensure_ascii=False)
    return render("zh" if lang == "zh" else "en", key, name=name, raw=quoted, kept=js_str(kept))


def _places() -> dict[str, str]:
    """Where goalkeeper's own folders are for this process (the trust guard protects them)."""
    from goalkeeper.hosts.hook_client import runtime_dir
    from goalkeeper.store.locations import config_home, state_home

    return {
        "state_home": str(state_home()),
        "config_home": str(config_home()),
        "runtime_dir": runtime_dir(),
        "home": os.path.expanduser("~"),
    }


USER_CONFIG_VAR = "GOALKEEPER_USER_CONFIG"


class AgentEnv(dict[str, str]):
    """goalkeeper's variables as a process in an agent's shell sees them (``relevant_env``):
    the agent may have set them in front of the command, so ``load_config`` lets them only
    make things stricter and reads no user config file they name. ``dropped``: variables
    taken out of the process before it used them (``GOALKEEPER_STATE_HOME``)."""

    def __init__(self, values: Mapping[str, str], agent: str, dropped: tuple[str, ...]) -> None:
        super().__init__(values)
        self.agent = agent
        self.dropped = dropped


class _AgentGate:
    """``_Gate``'s counterpart for the agent's environment: a value applies only when it asks
    no more of the user's trust than the one in force (``pinning.stricter_or_equal``)."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.held: list[str] = []

    def allows(self, name: str, new: object, current: object) -> bool:
        if _stricter(name, new, current):
            return True
        self.held.append(ENV_PREFIX + name.upper())
        return False


def _stricter(name: str, new: object, current: object) -> bool:
    from goalkeeper import pinning

    return pinning.stricter_or_equal(name, new, current)


def _agent_warning(name: str, agent: str) -> str:
    return (
        f"environment: {name} was set in {agent}'s shell, where it may only make goalkeeper "
        "stricter; it is ignored (set it in your own terminal or your config file)"
    )


def user_config_path(env: Mapping[str, str]) -> Path:
    """The user's own config file: ``GOALKEEPER_USER_CONFIG``, else
    ``$XDG_CONFIG_HOME/goalkeeper/config.toml``, else ``~/.config/goalkeeper/config.toml``. It
    is outside every project, so it is the user's and is never gated."""
    named = env.get(USER_CONFIG_VAR, "").strip()
    if named:
        return Path(os.path.expanduser(named))
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "goalkeeper" / "config.toml"


class _Gate:
    """Decides, key by key, whether a project file's value may apply: freely, when it is
    stricter than what is in force, or when the user approved the file as it is now."""

    def __init__(
        self, name: str, table: Mapping[str, Any], project: Path, approved: dict[str, str] | None
    ) -> None:
        self.name = name
        self.table = table
        self.project = project
        self.approved = approved
        self.held: list[str] = []
        self._trusted: bool | None = None

    def allows(self, name: str, new: object, current: object) -> bool:
        from goalkeeper import pinning

        if not pinning.needs_approval(name) or pinning.stricter_or_equal(name, new, current):
            return True
        if self._trusted is None:
            if self.approved is None:
                self.approved = pinning.approved_digests(self.project)
            wanted = self.approved.get(self.name)
            self._trusted = wanted is not None and wanted == pinning.table_digest(self.table)
        if not self._trusted:
            self.held.append(name)
        return self._trusted

    def warning(self) -> str:
        names = ", ".join(n.replace("_", "-") for n in self.held)
        known = self.approved is not None and self.name in self.approved
        why = "changed since you approved them" if known else "are not approved"
        return (
            f"{self.name}: its goalkeeper settings {why}, so {names} stay at their defaults "
            "(a project file may only make goalkeeper stricter); review the file, then run "
            "`goalkeeper allow` in your own terminal"
        )


def project_tables(project: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The goalkeeper tables of the project's config files, as ``load_config`` reads them."""
    return _file_tables(project, [])


def _file_tables(project: Path, warnings: list[str]) -> list[tuple[Path, dict[str, Any]]]:
    tables: list[tuple[Path, dict[str, Any]]] = []
    pyproject = project / "pyproject.toml"
    data = _read_toml(pyproject, warnings, needle=b"goalkeeper")
    if data is not None:
        table = data.get("tool", {}).get("goalkeeper")
        if isinstance(table, dict):
            tables.append((pyproject, table))
    own = project / ".goalkeeper.toml"
    data = _read_toml(own, warnings)
    if data is not None:
        nested = (
            data.get("tool", {}).get("goalkeeper") if isinstance(data.get("tool"), dict) else None
        )
        tables.append((own, nested if isinstance(nested, dict) else data))
    return tables


def _read_toml(
    path: Path, warnings: list[str], needle: bytes | None = None, *, confined: bool = True
) -> dict[str, Any] | None:
    """The TOML at ``path`` (cached by stamp); ``confined``: a project file, which must not be
    a symlink out of its folder (a user's own file may live anywhere, dotfiles included)."""
    try:
        st = path.stat()
    except (OSError, ValueError):  # ValueError: a NUL byte in the path
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key in _toml_cache:
        return _toml_cache[key]
    from goalkeeper.store.safe_read import UnsafeFile, read_capped

    try:  # the agent can make it a FIFO, a device or a symlink out of the project
        raw = read_capped(path, MAX_CONFIG_BYTES, within=path.parent if confined else None)
    except UnsafeFile as exc:
        warnings.append(f"{path.name}: it {exc.reason}; its goalkeeper settings are ignored")
        return None
    if needle is not None and needle not in raw:
        _toml_cache[key] = {}
        return {}
    import tomllib  # only when there is something to parse: hooks stay lean

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        warnings.append(f"{path.name}: not valid TOML ({exc}); its goalkeeper settings are ignored")
        return None
    _toml_cache[key] = data
    return data


def _apply(
    values: dict[str, object],
    table: Mapping[str, object],
    source: str,
    warnings: list[str],
    prefix: str = "",
    gate: _Gate | _AgentGate | None = None,
    origin: dict[str, str] | None = None,
) -> None:
    for raw_key, raw in table.items():
        name = str(raw_key).replace("-", "_").lower()
        label = f"{prefix}{name.upper()}" if prefix else str(raw_key)
        if name not in _FIELDS:
            warnings.append(f"{source}: unknown setting '{label}' ignored")
            continue
        default = getattr(Config(), name)
        current = values.get(name, default)
        try:
            value = _coerce(name, raw, default)
        except ValueError as exc:
            warnings.append(f"{source}: {label}={raw!r} is invalid ({exc}); using {current!r}")
            continue
        if gate is None or gate.allows(name, value, current):
            values[name] = value
            if origin is not None:
                origin[name] = f"{source} ({label})" if prefix else source


def _coerce(name: str, raw: object, default: object) -> object:
    if name == "evidence_commands":
        return _to_commands(raw)
    if name == "catalog":
        if not isinstance(raw, str):
            raise ValueError("expected a path")
        return raw.strip()  # empty is valid: the built-in catalog alone
    if name == "test_command":
        if not isinstance(raw, str) or not raw.strip():
            raise ValueError("expected a command")
        return raw.strip()
    if isinstance(default, bool):
        return _to_bool(raw)
    if isinstance(default, int):
        value: float = _to_number(raw, int)
    elif isinstance(default, float):
        value = _to_number(raw, float)
    else:
        if not isinstance(raw, str):
            raise ValueError("expected text")
        text = str(raw).strip().lower()
        if name in _CHOICES and text not in _CHOICES[name]:
            raise ValueError("expected one of " + ", ".join(_CHOICES[name]))
        if not text:
            raise ValueError("empty")
        return text if name in _CHOICES else str(raw).strip()
    if name in _MINIMUM and value < _MINIMUM[name]:
        raise ValueError(f"must be at least {_MINIMUM[name]:g}")
    if name == "compact_at" and not 0 < value <= 1:
        raise ValueError("must be a fraction between 0 and 1")
    if name == "session_mb" and value <= 0:
        raise ValueError("must be positive")
    return value


def _to_commands(raw: object) -> tuple[str, ...]:
    """A TOML list of commands, or ``;``-separated text in the environment."""
    items = raw.split(";") if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise ValueError("expected a list of commands")
    return tuple(i.strip() for i in items if i.strip())


MAX_NUMBER = 1e12  # far beyond any sensible setting, far below float overflow


def _to_number(raw: object, kind: Callable[[str], float]) -> float:
    """A finite number of the right kind; NaN, infinity and absurd sizes are invalid."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError("expected a number")
    try:
        value = float(raw.strip()) if isinstance(raw, str) else float(raw)
    except (ValueError, OverflowError):
        raise ValueError("expected a number") from None
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        raise ValueError("expected a finite number")
    if kind is int:
        if value != int(value):
            raise ValueError("expected a whole number")
        return int(value)
    return value


def _to_bool(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected true or false")


AGENT_DROPPED = ("GOALKEEPER_STATE_HOME", "GOALKEEPER_RUNTIME_DIR")
"""Variables that move goalkeeper's own folders: from an agent's shell, not followed at all."""


def relevant_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment variables that can change goalkeeper's behaviour: ``GOALKEEPER_*`` and
    pi-todone's own names, the same set the hook client forwards (audit seed002 D1).

    A command the user runs reads them as theirs. In a process marked as an agent's
    (``agent_shell.find_agent_shell``; the commands of ``goalkeeper`` read their environment
    here, the host-started hooks do not) they come back as an ``AgentEnv``: ``load_config``
    lets them only make things stricter, and ``AGENT_DROPPED`` are taken out of this process's
    own environment before goalkeeper's folders are named from it."""
    source = os.environ if env is None else env
    values = {k: v for k, v in source.items() if k.startswith(ENV_PREFIX) or k in ENV_ALIASES}
    if env is not None:
        return values
    from goalkeeper.hosts.transport.agent_shell import find_agent_shell

    found = find_agent_shell()
    if found is None:
        return values
    dropped = tuple(name for name in AGENT_DROPPED if os.environ.pop(name, None) is not None)
    values = {k: v for k, v in values.items() if k not in AGENT_DROPPED}
    return AgentEnv(values, found.agent, dropped)
