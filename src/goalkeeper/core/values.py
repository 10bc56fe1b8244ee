"""Events and actions: the host-neutral vocabulary between hosts, the engine and the guards.

Events are facts (nouns) a host observed; actions are imperatives a guard asks for. Both are
frozen values with no hidden ids or timestamps, so a sequence of events can be replayed and two
equal events compare equal. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from msgspec import Struct, field

from goalkeeper.core.goals.goal import GoalUpdate

if TYPE_CHECKING:
    from goalkeeper.core.proof.protected import TestChange

# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------

SessionSource = Literal["startup", "resume", "compact", "clear", "fork", "other"]


class SessionStart(Struct, frozen=True):
    """A session began, was resumed, or restarted after its history was compacted."""

    session_id: str
    source: SessionSource = "startup"


class UserPrompt(Struct, frozen=True):
    """A real user message (never one of goalkeeper's own continuations)."""

    session_id: str
    text: str
    verified: bool = True
    """False when the host's own record (its transcript) does not show the text as the user's:
    a hook event the agent may have made by hand. Such a prompt still gets the usual context,
    but it does not set, replace or resume a goal, nor reset a count."""


class BeforeAgentStart(Struct, frozen=True):
    """A run is about to start: the moment to re-feed the plan's anchors."""

    session_id: str


class ToolCall(Struct, frozen=True):
    """The model asked to run a tool; a guard may block it."""

    session_id: str
    name: str
    input: dict[str, object] = field(default_factory=dict)
    agent_id: str = ""
    """The subagent that made the call, as the host names it (Claude Code's ``agent_id``); ""
    for the main agent, or when the host does not say."""

    # The input is what a tool was asked, not which call this is: equal and hashed without it
    # (and hashable at all, though it holds a dictionary).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolCall):
            return NotImplemented
        return (self.session_id, self.name) == (other.session_id, other.name)

    def __hash__(self) -> int:
        return hash((self.session_id, self.name))


class ToolResult(Struct, frozen=True):
    """A tool ran; bookkeeping only."""

    session_id: str
    name: str
    is_error: bool = False


class TurnEnd(Struct, frozen=True):
    """One model turn ended inside a run (a soft advice window)."""

    session_id: str


RunOutcome = Literal["passed", "failed", "unfinished", "refused", "unknown"]
"""How a tool call ended: ``passed``/``failed`` by its result (a shell command's exit status);
``unfinished``: no result, interrupted, timed out or sent to the background; ``refused``: it
never ran (a permission or hook denied it); ``unknown``: it ran, but the host does not report
how it ended."""


RUN_TAIL_CHARS = 600
"""How much of a shell run's output a host keeps in a ``ToolRun``: enough for a runner's
summary and a failing line, small in the session's state."""


class ToolRun(Struct, frozen=True):
    """One tool call of the run that just settled, as the host saw it; the host sorts its own
    tool names into ``shell`` (runs a command line), ``edit`` (writes a file) and ``other``."""

    kind: Literal["shell", "edit", "other"]
    name: str = ""
    command: str = ""
    """The command line of a shell tool."""
    path: str = ""
    """The file an edit tool wrote."""
    outcome: RunOutcome = "unknown"
    tail: str = ""
    """The end of its output (a few hundred characters), where the host has it."""


class Activity(Struct, frozen=True):
    """What the host measured about the run that just settled.

    ``None`` means "this host did not measure it"; guards then fall back to what they counted
    from ``ToolCall`` events themselves, or skip the rule.
    """

    tool_calls: int | None = None
    context_tokens: int | None = None
    session_bytes: int | None = None
    long_wait: bool | None = None
    """A subagent or a long shell command was started (the todos guard's wait-gap advice)."""
    context_window: int | None = None
    """The model's context window as the host knows it (Pi does); else the configured one."""
    runs: tuple[ToolRun, ...] | None = None
    """The run's tool calls in order, with how each ended: a ``[PDCA] check`` counts only if a
    verification among them finished. None when the host does not report them."""
    unreadable: bool = False
    """The host reports its runs but could not read them this time (Claude Code: the
    transcript is missing or not a regular file): nothing of this run can count as a check."""

    def context_ratio(self, configured_window: int) -> float | None:
        """How full the context is (0..1+), or None when the host did not measure it."""
        if self.context_tokens is None:
            return None
        window = self.context_window or configured_window
        return self.context_tokens / window if window > 0 else None


class Settled(Struct, frozen=True):
    """The agent truly stopped and waits for input: the only moment cadence decisions are made."""

    session_id: str
    last_text: str
    aborted: bool = False
    error: str | None = None
    activity: Activity = Activity()


class SubagentSettled(Struct, frozen=True):
    """A subagent finished and is about to hand its answer back (Claude Code's and Codex's
    ``SubagentStop``): a ``Continue`` keeps that subagent working, on a host that declares
    ``subagent_stop``. Its evidence is judged like the main agent's; the session is the
    parent's."""

    session_id: str
    agent_id: str
    last_text: str
    agent_type: str = ""
    continued: bool = False
    """The host says this stop ends a run a stop hook continued (``stop_hook_active``)."""
    activity: Activity = Activity()
    """The subagent's own run, from its transcript, where the host has one."""


class Choice(Struct, frozen=True):
    """The user's answer to an ``Ask``: one of its answer ids, or None when nobody answered in
    time (or there was no one to ask), which means the question's safe default."""

    session_id: str
    key: str
    answer: str | None


Event = (
    SessionStart
    | UserPrompt
    | BeforeAgentStart
    | ToolCall
    | ToolResult
    | TurnEnd
    | Settled
    | Choice
    | SubagentSettled
)

# ---------------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------------

AdviseWhen = Literal["now", "next_turn"]
"""``now``: into the running conversation (Pi's steer); ``next_turn``: when the agent next runs,
without starting a run (Pi's follow-up). A host that cannot queue one gets it deferred by the
engine to its next answer that carries context."""
NotifyLevel = Literal["info", "warning", "error"]


class Continue(Struct, frozen=True):
    """Start another run with this message (the agent settled and is not done)."""

    text: str


class Advise(Struct, frozen=True):
    """A soft note into the conversation that does not by itself start a run."""

    text: str
    when: AdviseWhen = "now"
    static: bool = False
    """Never changes between turns: merged ahead of dynamic advice, so the prefix stays stable."""


class Block(Struct, frozen=True):
    """Refuse a tool call; the reason is shown to the model."""

    reason: str


class Notify(Struct, frozen=True):
    """Tell the user (never the model)."""

    text: str
    level: NotifyLevel = "info"


class Compact(Struct, frozen=True):
    """Compact the conversation history, keeping what the instructions name."""

    instructions: str


class ClearContext(Struct, frozen=True):
    """Start the continuation that goes with it in a fresh context: the host drops the
    conversation history (Gemini CLI's ``AfterAgent`` ``clearContext``), so that continuation is
    all the model has. Merged only alongside a ``Continue`` (never a clear without the text that
    follows it), and asked only by the engine's own rules, never from the agent's words."""


class Pause(Struct, frozen=True):
    """Stop continuing automatically and say why; the user decides what happens next."""

    reason: str


class Close(Struct, frozen=True):
    """Every gate passed: the agent may stop, and the user is told the work is proven done."""

    summary: str


class Reply(Struct, frozen=True):
    """The result of a tool goalkeeper itself provides (``todo``, the workflow tools)."""

    data: dict[str, object]
    """Structured result: what the model reads when there is no ``text``, and the result's
    details (kept by hosts that keep them, e.g. Pi's tool-result ``details``)."""
    text: str | None = None
    """What the model reads, when it is prose (a procedure) rather than data."""


class FileFact(Struct, frozen=True):
    """What goalkeeper saw of a file named in evidence."""

    path: str
    exists: bool
    mtime: float | None = None
    git_changed: bool | None = None
    """Not as committed (modified, added, untracked), by its blob id against HEAD
    (``engine.git``); None outside a git work tree."""
    digest: str | None = None
    """The sha256 (hex) of its content: a regular file inside the project, read whole."""
    rel: str | None = None
    """The path it resolves to (symlinks followed), relative to the project, POSIX style."""
    outside: bool = False
    """It resolves outside the project, or cannot be resolved: goalkeeper checks nothing there."""
    kind: Literal["file", "folder", "other"] = "file"
    """What it is when it exists; ``other`` is a FIFO, a device or a socket."""
    entries: tuple[tuple[str, str], ...] = ()
    """The project folder's snapshot: each file read, as (relative path, sha256 hex), the
    digest empty for a file too large or unreadable."""
    skipped: tuple[str, ...] = ()
    """The project folder's snapshot: the folders not read (dependencies, caches, virtualenvs)."""
    complete: bool = False
    """The project folder's snapshot: no limit cut the walk short."""


class CommandFact(Struct, frozen=True):
    """A command named in evidence: run by goalkeeper (``exit_code``, output tail), or not run
    because it is not an approved command with test-selection arguments (``refusal``, a
    ``core.argv`` id, and its ``detail``)."""

    cmd: str
    allowed: bool
    exit_code: int | None = None
    output_tail: str = ""
    timed_out: bool = False
    refusal: str | None = None
    detail: str = ""
    argv: tuple[str, ...] = ()
    """What goalkeeper ran (as the approved words, before any confinement wrapper)."""
    seconds: float = 0.0
    """How long the run took."""
    approved: tuple[str, ...] = ()
    """The commands goalkeeper may re-run, each with test-selection arguments (what a refusal
    names instead)."""
    replay: TestReplay | None = None
    """A passing re-run, run again against the tests as they were when the user last set the
    session going (``Inspect.protect``); None when not asked or nothing was kept."""

    # Equal when the same command gave the same result: how long it took, what else was
    # approved and the replay are circumstances, not the fact.
    def _fact(self) -> tuple[object, ...]:
        return (
            self.cmd,
            self.allowed,
            self.exit_code,
            self.output_tail,
            self.timed_out,
            self.refusal,
            self.detail,
            self.argv,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CommandFact):
            return NotImplemented
        return self._fact() == other._fact()

    def __hash__(self) -> int:
        return hash(self._fact())


class VerifyRun(Struct, frozen=True):
    """One verification command run by goalkeeper for a goal."""

    command: str
    exit_code: int | None
    output_tail: str = ""
    timed_out: bool = False
    seconds: float = 0.0
    no_tests: bool = False
    """It exited 0, but its runner's summary says no test ran (all deselected, none found,
    ``--passWithNoTests``): never a pass."""

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.no_tests


class TestReplay(Struct, frozen=True):
    """The protected tests at a passing verify: which changed since the goal was set, and the
    verify run again against the original ones (in a scratch copy of the work tree)."""

    __test__ = False  # a value, not a pytest test class

    changes: tuple[TestChange, ...] = ()
    runs: tuple[VerifyRun, ...] = ()
    problem: str | None = None
    """Why the replay could not run (the copy failed, the tree is too large)."""

    @property
    def passed(self) -> bool:
        """Nothing changed, or the original tests pass against the agent's code too."""
        if not self.changes:
            return True
        return self.problem is None and bool(self.runs) and all(r.passed for r in self.runs)


class HiddenRun(Struct, frozen=True):
    """The goal's verify run again with the user's hidden acceptance tests laid over a scratch
    copy of the work tree (``goal set --hidden-tests``)."""

    runs: tuple[VerifyRun, ...] = ()
    problem: str | None = None
    """Why the run could not happen (the copy failed, the tree is too large)."""

    @property
    def passed(self) -> bool:
        """The hidden tests ran and every verify command passed with them."""
        return self.problem is None and bool(self.runs) and all(r.passed for r in self.runs)


class Facts(Struct, frozen=True):
    files: tuple[FileFact, ...] = ()
    commands: tuple[CommandFact, ...] = ()
    verify: tuple[VerifyRun, ...] = ()
    tamper: TestReplay | None = None
    """The protected tests checked at a passing verify; None when there is no baseline."""
    kept: TestReplay | None = None
    """``Inspect.replay_tests``: the kept tests checked; None when nothing was kept or the
    project has no test command goalkeeper knows."""
    hidden: HiddenRun | None = None
    """``Inspect.hidden``: the verify with the user's hidden tests; None when there are none."""


class Inspect(Struct, frozen=True):
    """A guard needs facts only the engine can gather (files, a re-run command) before it can
    decide. The engine gathers them and asks that guard again with ``ctx.facts``."""

    files: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    verify: tuple[str, ...] = ()
    """A goal's verification commands, run in order until one fails."""
    verify_timeout_s: float = 120.0
    tamper: bool = False
    """Compare the test files with the fingerprint taken when the goal was set."""
    protect: str = ""
    """The key of kept tests (``KeepTests``): a passing re-run of ``commands`` is run again
    against them when the agent changed them since."""
    replay_tests: bool = False
    """Run the project's test command against the tests kept under ``protect`` if the agent
    changed them (a plan's close): ``Facts.kept``."""
    hidden: bool = False
    """At a passing verify, run it again with the user's hidden acceptance tests, if any."""


class KeepTests(Struct, frozen=True):
    """Keep the project's test files and test configuration as they are now under ``key``,
    unless something is kept there already: the tests a todo's test gate is later held to."""

    key: str


class GoalCondition(Struct, frozen=True):
    """A condition a goal names in prose (``core.goals.conditions``): its kind (tests, types,
    lint, build, coverage) and what the user said of it, which the project layer turns into a
    command (``store.conditions``) or, when none fits, a criterion the goal cannot be proven
    without."""

    kind: str
    words: str
    """The user's words for it ("coverage is at least 80%"), shown back as its criterion."""
    tool: str = ""
    """A tool they named for it (``ruff``, ``mypy``, ``tsc`` …): that one, not another."""
    path: str = ""
    """tests: the folder they named ("every test in tests/unit")."""
    threshold: int = 0
    """coverage: the minimum percent."""


class SetGoal(Struct, frozen=True):
    """Record a new goal in GOAL.md. The engine fills in what needs the project: the command
    for each of the ``conditions`` its text names in prose (or the criterion only the user
    settles, where no command fits), and the test fingerprint."""

    objective: str
    verify: tuple[str, ...] = ()
    conditions: tuple[GoalCondition, ...] = ()
    """The prose conditions no command in ``verify`` already is, with what the user said of
    each (``core.goals.conditions``)."""
    stages: tuple[str, ...] = ()
    source: str = "phrase"
    replace: bool = False
    rounds: int | None = None
    timeout_s: float | None = None
    trusted: bool = True
    """The user set it (a prompt, a command in their own terminal): its promise is approved
    with it. An untrusted one (``goalkeeper goal set`` from an agent's shell) is written to
    GOAL.md as a proposal that is held until the user approves it."""


class ApproveGoal(Struct, frozen=True):
    """The user approved the goal GOAL.md now holds (a host dialog): record its promise, if
    GOAL.md still makes the promise they saw (``digest``)."""

    digest: str
    source: str = "dialog"


class AddCriteria(Struct, frozen=True):
    """Record the acceptance criteria the agent added to the approved goal
    (``core.goals.promise.added_criteria``): stricter, so they join the goal in force without
    the user. The engine records them only if GOAL.md still makes the promise ``digest``
    and still only adds to the approved one."""

    goal_id: str
    criteria: tuple[str, ...]
    digest: str


class AcceptPlan(Struct, frozen=True):
    """The user accepted the plan's changed commitments (a host dialog): record ``digest``
    (``core.commitments.commitments_digest``) as accepted."""

    digest: str


class WriteGoal(Struct, frozen=True):
    """Apply changes to GOAL.md (fields, Progress Log lines, archiving)."""

    update: GoalUpdate


class Retry(Struct, frozen=True):
    """Start another run after a delay (a host with timers); others treat it as a pause."""

    after_s: float
    text: str


class Ask(Struct, frozen=True):
    """A question for the user with a few answers, on a host that can show one and wait
    (Pi's ``ctx.ui.select``); the answer comes back as a ``Choice`` event with ``key``. When
    nobody answers within ``timeout_s`` the ``default`` holds, so it must be the safe one."""

    key: str
    title: str
    options: tuple[tuple[str, str], ...]
    """(answer id, label shown), in the order shown."""
    default: str
    timeout_s: float = 60.0


class Record(Struct, frozen=True):
    """Append an entry to the session journal (for ``goalkeeper status`` and post-mortems)."""

    kind: str
    data: dict[str, object] = field(default_factory=dict)


Action = (
    Continue
    | Advise
    | Block
    | Notify
    | Compact
    | ClearContext
    | Pause
    | Close
    | Reply
    | Inspect
    | SetGoal
    | ApproveGoal
    | AddCriteria
    | AcceptPlan
    | KeepTests
    | WriteGoal
    | Retry
    | Ask
    | Record
)

Capability = Literal[
    "continue",
    "advise",
    "follow_up",
    "block",
    "notify",
    "compact",
    "clear_context",
    "schedule",
    "ask",
    "subagents",
    "subagent_stop",
]
"""What a host can do; guards ask these, never the host's name. ``compact``: compact the
history on request (``Compact``); ``clear_context``: start a continuation in a fresh context
(``ClearContext``); ``subagents``: the agent can hand a task to a subagent with a fresh context
(Claude Code's Task tool, Codex's subagents), which a review asks for; ``subagent_stop``: keep
a subagent working at its stop (``Continue`` on a ``SubagentSettled``)."""


class Problem(Struct, frozen=True):
    """Why something was refused, as a value: a catalog key and its fields. Rendered in the
    session's language only when it is said (``problem.render(say)``)."""

    key: str
    fields: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, key: str, **fields: object) -> Problem:
        return cls(key, tuple((k, str(v)) for k, v in fields.items()))

    def render(self, say: Callable[..., str]) -> str:
        return say(self.key, **dict(self.fields))
