"""Events and actions: the host-neutral vocabulary between hosts, the engine and the guards.

Events are facts (nouns) a host observed; actions are imperatives a guard asks for. Both are
frozen values with no hidden ids or timestamps, so a sequence of events can be replayed and two
equal events compare equal. Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------

SessionSource = Literal["startup", "resume", "compact", "clear", "fork", "other"]


@dataclass(frozen=True, slots=True)
class SessionStart:
    """A session began, was resumed, or restarted after its history was compacted."""

    session_id: str
    source: SessionSource = "startup"


@dataclass(frozen=True, slots=True)
class UserPrompt:
    """A real user message (never one of goalkeeper's own continuations)."""

    session_id: str
    text: str


@dataclass(frozen=True, slots=True)
class BeforeAgentStart:
    """A run is about to start: the moment to re-feed the plan's anchors."""

    session_id: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asked to run a tool; a guard may block it."""

    session_id: str
    name: str
    input: dict[str, object] = field(default_factory=dict, compare=False)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A tool ran; bookkeeping only."""

    session_id: str
    name: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """One model turn ended inside a run (a soft advice window)."""

    session_id: str


@dataclass(frozen=True, slots=True)
class Activity:
    """What the host measured about the run that just settled.

    ``None`` means "this host did not measure it"; guards then fall back to what they counted
    from ``ToolCall`` events themselves, or skip the rule.
    """

    tool_calls: int | None = None
    context_tokens: int | None = None
    session_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class Settled:
    """The agent truly stopped and waits for input: the only moment cadence decisions are made."""

    session_id: str
    last_text: str
    aborted: bool = False
    error: str | None = None
    activity: Activity = Activity()


Event = SessionStart | UserPrompt | BeforeAgentStart | ToolCall | ToolResult | TurnEnd | Settled

# ---------------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------------

AdviseWhen = Literal["now", "next_turn"]
NotifyLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Continue:
    """Start another run with this message (the agent settled and is not done)."""

    text: str


@dataclass(frozen=True, slots=True)
class Advise:
    """A soft note into the conversation that does not by itself start a run."""

    text: str
    when: AdviseWhen = "now"


@dataclass(frozen=True, slots=True)
class Block:
    """Refuse a tool call; the reason is shown to the model."""

    reason: str


@dataclass(frozen=True, slots=True)
class Notify:
    """Tell the user (never the model)."""

    text: str
    level: NotifyLevel = "info"


@dataclass(frozen=True, slots=True)
class Compact:
    """Compact the conversation history, keeping what the instructions name."""

    instructions: str


@dataclass(frozen=True, slots=True)
class Pause:
    """Stop continuing automatically and say why; the user decides what happens next."""

    reason: str


@dataclass(frozen=True, slots=True)
class Close:
    """Every gate passed: the agent may stop, and the user is told the work is proven done."""

    summary: str


@dataclass(frozen=True, slots=True)
class Record:
    """Append an entry to the session journal (for ``goalkeeper status`` and post-mortems)."""

    kind: str
    data: dict[str, object] = field(default_factory=dict)


Action = Continue | Advise | Block | Notify | Compact | Pause | Close | Record

Capability = Literal["continue", "advise", "block", "notify", "compact"]
