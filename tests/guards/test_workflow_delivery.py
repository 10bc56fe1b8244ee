"""Every message a workflow produces fits the host that delivers it, and the methods still
arrive whole (issue 23): Claude Code replaces a hook's ``additionalContext`` over 10,000
characters by a preview and a file path (the user's request was lost that way), Codex keeps
only the head and tail of a tool result over 10,000 bytes. Driven through the real engine over
the built-in catalog and the upstream procedure files: a hook process (its cap) and the MCP
server (the tool result's cap) share one session, as they do in Claude Code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Continue,
    Reply,
    SessionStart,
    ToolCall,
    UserPrompt,
)
from goalkeeper.core.workflows.resolver import (
    MAX_BUNDLE_BYTES,
    context_available,
    context_size,
    render,
)
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.hosts.claude import hook as claude_code
from goalkeeper.hosts.mcp.server import CAPABILITIES as MCP_CAPABILITIES
from goalkeeper.hosts.mcp.server import max_tool_text
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock
from tests.guards.test_workflow import PREFIXED

REQUEST = "fix the login redirect after the session cookie expires"
OPEN = re.compile(r'<procedure-source id="([^"]+)" source="[^"]+"(?: part="\d+/\d+")?>\n')
HOSTS = {  # host → (its hooks' cap, its tool results' cap), as its modules declare them
    "claude": (claude_code.MAX_HOOK_TEXT, max_tool_text("claude")),
    "codex": (None, max_tool_text("codex")),
}


class Host:
    """A hook process and an MCP server of one host over one project, with the caps they
    declare, and every model-facing text either produced (each checked against its cap)."""

    def __init__(self, project: Path, host: str, lang: str) -> None:
        config = Config(no_plan="silent", lang=lang)  # type: ignore[arg-type]
        self.hook_cap, self.tool_cap = HOSTS[host]
        self.hook = Supervisor(
            project,
            config,
            host=host,
            capabilities=CLAUDE_CAPABILITIES,
            clock=FakeClock(),
            tool_names=PREFIXED,
            max_text=self.hook_cap,
        )
        self.mcp = Supervisor(
            project,
            config,
            host="mcp",
            capabilities=MCP_CAPABILITIES,
            clock=FakeClock(),
            tool_names=PREFIXED,
            max_text=self.tool_cap,
        )
        self.source = self.hook.procedures()

    def prompt(self, session: str, text: str) -> str:
        """A user prompt through the hook: the context it adds (one merged message)."""
        events = [UserPrompt(session, text, True), BeforeAgentStart(session)]
        return self._said(self.hook.handle(events).actions, self.hook_cap)

    def restart(self, session: str) -> str:
        return self._said(self.hook.handle([SessionStart(session, "compact")]).actions, None)

    def tool(self, session: str, name: str, **args: object) -> str:
        actions = self.mcp.handle([ToolCall(session, name, dict(args))]).actions
        return self._said(actions, self.tool_cap)

    def read_all(self, session: str) -> str:
        """Every part still waiting, read as the message says: ``read`` until none is left."""
        texts = []
        for _ in range(50):
            actions = self.mcp.handle([ToolCall(session, "workflow", {"mode": "read"})]).actions
            texts.append(self._said(actions, self.tool_cap))
            got = [a for a in actions if isinstance(a, Reply)]
            if got[0].data["left"] == 0:
                return "\n\n".join(texts)
        raise AssertionError("read never ran out of parts")

    def _said(self, actions: tuple[Action, ...], cap: int | None) -> str:
        texts = [a.text for a in actions if isinstance(a, Advise | Continue | Reply)]
        texts += [a.reason for a in actions if isinstance(a, Block)]
        assert not any(isinstance(a, Block) for a in actions), texts
        for text in texts:
            limit = cap if cap is not None else 10**9
            assert len(text.encode("utf-8")) <= limit, (len(text.encode()), text[:300])
        return "\n\n".join(texts)

    def check_whole(self, delivered: str, *, some: bool = True) -> None:
        """Each procedure in ``delivered``: its parts joined are its rendered text, unchanged.
        ``some``: at least one procedure is there (a load of one delivered before has none)."""
        found: dict[str, str] = {}
        for match in OPEN.finditer(delivered):
            end = delivered.index("\n</procedure-source>", match.end())
            found[match.group(1)] = found.get(match.group(1), "") + delivered[match.end() : end]
        assert found or not some
        catalog, read = self.source.catalog, self.source.read
        for ident, body in found.items():
            proc = catalog.find(ident)
            rendered = render(catalog, proc, read(proc))
            assert body == rendered[rendered.index(">\n") + 2 : -len("\n</procedure-source>")]


def paths(catalog: Any, route: str) -> Iterator[list[str]]:
    """A shortest path of transitions from the route's entry to each procedure it reaches."""
    entry = catalog.entry(route)
    seen, queue = {entry.id}, [[entry.id]]
    while queue:
        path = queue.pop(0)
        for nxt in catalog.allowed(route, path[-1]):
            if nxt not in seen:
                seen.add(nxt)
                queue.append([*path, nxt])
                yield [*path[1:], nxt]


def loadable(h: Host, procedure: str, loaded: list[str]) -> list[str]:
    """The references a load would accept now (the whole context stays within 64 KiB)."""
    catalog, read = h.source.catalog, h.source.read
    return [
        ref
        for ref in context_available(catalog, procedure, loaded)
        if context_size(catalog, procedure, [*loaded, ref], read) <= MAX_BUNDLE_BYTES
    ]


CASES = [("claude", "en"), ("claude", "zh"), ("codex", "en")]


@pytest.mark.parametrize(("host", "lang"), CASES)
def test_every_route_step_fits_the_cap_and_delivers_its_methods_whole(
    tmp_path: Path, host: str, lang: str
) -> None:
    """Each route started with `/workflow <route> <request>` (the request inside the first
    message), then every procedure it reaches, by the phase tool and by the command, every
    reference loaded, a restore: each message under its cap, the parts read, the texts whole."""
    h = Host(tmp_path, host, lang)
    catalog = h.source.catalog
    n = 0
    for route in (r.route for r in catalog.routes()):
        for path in [[], *paths(catalog, route)]:
            for via in ("tool", "command"):
                n += 1
                session = f"{route}-{n}"
                started = h.prompt(session, f"/workflow {route} {REQUEST}")
                assert REQUEST in started
                delivered = [started, h.read_all(session)]
                for k, target in enumerate(path, 1):
                    if via == "command" and k == len(path):
                        moved = h.prompt(session, f"/workflow transition {target}")
                    else:
                        moved = h.tool(
                            session, "workflow_active", action="transition", target=target
                        )
                    delivered += [moved, h.read_all(session)]
                h.check_whole("\n\n".join(delivered))
            procedure = catalog.entry(route).id if not path else path[-1]
            loaded: list[str] = []
            while refs := loadable(h, procedure, loaded):  # a load past 64 KiB is refused
                text = h.tool(session, "workflow_active", action="load", reference=refs[0])
                h.check_whole(text + "\n\n" + h.read_all(session), some=False)
                loaded.append(refs[0])
            restored = h.restart(session)
            if h.hook_cap is not None:
                assert len(restored.encode()) <= h.hook_cap
            h.check_whole(restored + "\n\n" + h.read_all(session))


@pytest.mark.parametrize(("host", "lang"), CASES)
def test_every_capability_and_its_references_fit_the_cap(
    tmp_path: Path, host: str, lang: str
) -> None:
    """Each standalone capability, by the gateway and by `/workflow <capability> <request>`,
    and each reference it discloses: under the cap, the texts whole after the parts are read."""
    h = Host(tmp_path, host, lang)
    catalog = h.source.catalog
    for proc in (p for p in catalog.entries if p.standalone):
        session = f"cap-{proc.id}"
        said = h.prompt(session, f"/workflow {proc.id} {REQUEST}")
        assert REQUEST in said
        h.check_whole(said + "\n\n" + h.read_all(session))
        if proc.invocation == "model":
            text = h.tool(session, "workflow", mode="capability", capability=proc.id)
            h.check_whole(text + "\n\n" + h.read_all(session))
        for ref in dict.fromkeys(catalog.normalize(r) for r in proc.discloses):
            text = h.tool(session, "workflow", mode="reference", capability=proc.id, reference=ref)
            h.check_whole(text + "\n\n" + h.read_all(session))


def test_a_start_that_fits_is_one_message_and_read_says_nothing_waits(tmp_path: Path) -> None:
    """Under the cap nothing is split: no read is asked for, and read says none is waiting."""
    h = Host(tmp_path, "claude", "en")
    text = h.tool("s", "workflow", mode="workflow", route="hard-bug")
    assert 'part="' not in text and "mode read" not in text
    assert h.read_all("s").startswith("No part is waiting")


def test_a_long_start_names_what_follows_and_the_guidance_reminds(tmp_path: Path) -> None:
    """Over the hook's cap: the first message says how many parts follow and how to get them,
    and the per-turn guidance reminds of the unread parts until they are read."""
    h = Host(tmp_path, "claude", "en")
    started = h.prompt("s", f"/workflow wayfinding {REQUEST}")
    assert "more part(s)" in started and "mcp__goalkeeper__workflow with mode read" in started
    assert "still unread" in h.prompt("s", "go on")
    h.read_all("s")
    assert "still unread" not in h.prompt("s", "go on")


def test_without_a_cap_the_methods_arrive_in_one_message(tmp_path: Path) -> None:
    """A host with no known cap (Pi, Gemini's hooks) gets the whole step at once."""
    h = Host(tmp_path, "codex", "en")
    started = h.prompt("s", f"/workflow wayfinding {REQUEST}")
    assert 'part="' not in started and len(started.encode()) > 10_000


def test_each_host_declares_its_caps_and_an_unknown_client_gets_the_smallest() -> None:
    """Claude Code's hook 10,000 and MCP result 25,000; Codex's result 10,000; Gemini's 40,000;
    a client goalkeeper does not know: 10,000, the smallest known."""
    assert claude_code.MAX_HOOK_TEXT == 10_000
    assert [max_tool_text(h) for h in ("claude", "codex", "gemini", "other")] == [
        25_000,
        10_000,
        40_000,
        10_000,
    ]
