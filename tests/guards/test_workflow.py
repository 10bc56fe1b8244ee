"""Workflow routes through the engine (catalog spec §7–§10, §14.2): a real store in a temp
project, one event per ``handle`` call as a host sends them, the built-in catalog."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from goalkeeper.config import Config
from goalkeeper.core.values import (
    Action,
    Advise,
    BeforeAgentStart,
    Block,
    Continue,
    Event,
    Notify,
    Reply,
    SessionStart,
    Settled,
    ToolCall,
    UserPrompt,
)
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.store import journal
from goalkeeper.store.sessions import load_session, save_session
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock

S = "s"
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
KEYS = {"version", "workItemId", "route", "procedure", "phase", "status", "loadedReferences"}
SURVEY_NEXT = "codebase-design, implement, code-review"
ALREADY = "Its instructions were delivered earlier in this session and are unchanged."
PREFIXED = {n: f"mcp__goalkeeper__{n}" for n in ("workflow", "workflow_active", "workflow_ask")}


def make_sup(project: Path, names: dict[str, str] | None = None) -> Supervisor:
    config, caps = Config(no_plan="silent", lang="en"), CLAUDE_CAPABILITIES
    return Supervisor(
        project, config, host="test", capabilities=caps, clock=FakeClock(), tool_names=names
    )


@pytest.fixture
def sup(tmp_path: Path) -> Supervisor:
    return make_sup(tmp_path)


def send(sup: Supervisor, event: Event) -> tuple[Action, ...]:
    return sup.handle([event]).actions


def gateway(sup: Supervisor, session: str = S, **args: object) -> tuple[Action, ...]:
    return send(sup, ToolCall(session, "workflow", dict(args)))


def act(sup: Supervisor, **args: object) -> tuple[Action, ...]:
    return send(sup, ToolCall(S, "workflow_active", dict(args)))


def begin(sup: Supervisor, route: str, session: str = S) -> dict[str, Any]:
    """Start ``route``; the persisted record (the reply's data without its mode)."""
    data = dict(reply(gateway(sup, session, mode="workflow", route=route)).data)
    assert data.pop("mode") == "workflow"
    return data


def reply(actions: tuple[Action, ...]) -> Reply:
    found = [a for a in actions if isinstance(a, Reply)]
    assert len(found) == 1, actions
    return found[0]


def blocked(actions: tuple[Action, ...]) -> str:
    assert not any(isinstance(a, Reply) for a in actions), actions
    return "\n".join(a.reason for a in actions if isinstance(a, Block))


def of(actions: tuple[Action, ...], kind: type[Advise | Continue | Notify]) -> list[Any]:
    return [a for a in actions if isinstance(a, kind)]


def records(sup: Supervisor, session: str = S) -> list[dict[str, Any]]:
    entries = journal.recent(sup.store.connection(), 500, session)
    return [e.data for e in entries if e.kind == "workflow"]


def guidance(sup: Supervisor) -> str:
    return "\n".join(a.text for a in of(send(sup, BeforeAgentStart(S)), Advise))


def settle(sup: Supervisor, **kwargs: Any) -> list[Continue]:
    return of(send(sup, Settled(S, "done", **kwargs)), Continue)


def poke_active(sup: Supervisor, **changes: str) -> None:
    """Edit the saved active record the way an older catalog would have left it."""
    with sup.store.transaction() as conn:
        row = load_session(conn, S, "test", 0.0)
        state = dict(row.guards["workflow"])
        state["active"] = {**state["active"], **changes}
        save_session(conn, replace(row, guards={**row.guards, "workflow": state}))


def ended(record: dict[str, Any], status: str, **extra: str) -> dict[str, Any]:
    """The terminal form of an active record: same addressing, no loaded references."""
    kept = {k: v for k, v in record.items() if k != "loadedReferences"}
    return {**kept, "status": status, **extra}


# -- the gateway --------------------------------------------------------------------------


def test_starting_architecture_delivers_the_survey_and_records_it(sup: Supervisor) -> None:
    """Both source blocks, the survey's legal moves, one 7-key record with a UUID work item."""
    actions = gateway(sup, mode="workflow", route="architecture")
    text = reply(actions).text or ""
    assert 'source="procedure/improve-codebase-architecture"' in text
    assert 'source="procedure/codebase-design"' in text
    assert f"Allowed next: {SURVEY_NEXT}" in text
    assert "Synchronous action: started workflow" in text
    saved = records(sup)
    assert len(saved) == 1 and set(saved[0]) == KEYS
    item = saved[0].pop("workItemId")
    assert UUID4.match(item) and saved[0] == {
        "version": 1,
        "route": "architecture",
        "procedure": "improve-codebase-architecture",
        "phase": "survey",
        "status": "active",
        "loadedReferences": [],
    }
    assert reply(actions).data == {"mode": "workflow", "workItemId": item, **saved[0]}
    assert [n.text for n in of(actions, Notify)] == ["[goalkeeper] started · Architecture Survey"]


def test_an_unknown_route_is_refused_without_a_record(sup: Supervisor) -> None:
    """The refusal names the route; nothing is persisted."""
    refusal = blocked(gateway(sup, mode="workflow", route="nope"))
    assert refusal.startswith("Unknown goalkeeper route: nope. The routes: idea-to-ship, ")
    missing = blocked(gateway(sup, mode="workflow"))  # seed003 audit D10b: not an empty name
    assert missing.startswith("No route given. The routes: idea-to-ship, "), missing
    assert records(sup) == []


def test_the_next_turn_gets_compact_guidance_for_the_work_item(sup: Supervisor) -> None:
    """At most 120 words: the work item, its legal moves as exact JSON, when to complete."""
    item = begin(sup, "architecture")["workItemId"]
    text = guidance(sup)
    assert item in text and len(text.split()) <= 120
    assert f'{{"action": "transition", "target": "<one of: {SURVEY_NEXT}>"}}' in text
    assert '{"action": "load", "reference": "<one of: HTML-REPORT,' in text
    assert '{"action": "complete"}' in text and '{"action": "cancel", "reason": "<why>"}' in text
    for phrase in ("integrated candidate", "blocking review", "findings resolved", "still active"):
        assert phrase in text


def test_starting_again_while_active_is_refused(sup: Supervisor) -> None:
    """A second start names the active work item and records nothing."""
    item = begin(sup, "architecture")["workItemId"]
    refusal = blocked(gateway(sup, mode="workflow", route="hard-bug"))
    assert (
        refusal
        == f"Workflow {item} is already active. Complete or cancel it before starting another."
    )
    assert len(records(sup)) == 1


def test_a_capability_runs_without_workflow_state(sup: Supervisor) -> None:
    """writing-for-agents: its own block, SKILL-MECHANICS offered but not loaded, no record."""
    answer = reply(gateway(sup, mode="capability", capability="writing-for-agents"))
    text = answer.text or ""
    assert answer.data == {"mode": "capability", "capability": "writing-for-agents"}
    assert "Persistent workflow state: none" in text
    assert 'source="procedure/writing-for-agents"' in text
    assert "SKILL-MECHANICS" in text and 'source="procedure/SKILL-MECHANICS"' not in text
    assert records(sup) == []
    assert "goalkeeper workflow active" not in guidance(sup)


@pytest.mark.parametrize("capability", ["teach", "setup-repository", "implement", "nope"])
def test_a_capability_the_model_may_not_start_is_refused(sup: Supervisor, capability: str) -> None:
    """User-only, non-standalone or unknown ids are not available to the model gateway."""
    refusal = blocked(gateway(sup, mode="capability", capability=capability))
    assert refusal == f"Capability {capability} is not available to the model gateway."


def test_a_reference_of_a_user_only_capability_loads(sup: Supervisor) -> None:
    """setup-repository / domain: the reference's block, echoed in the data, no record."""
    echo = {"mode": "reference", "capability": "setup-repository", "reference": "domain"}
    answer = reply(gateway(sup, **echo))
    assert answer.data == echo
    assert 'source="procedure/domain"' in (answer.text or "")
    assert records(sup) == []


def test_a_reference_the_capability_does_not_disclose_is_refused(sup: Supervisor) -> None:
    """The refusal names the capability; a non-standalone one is refused outright."""
    refusal = blocked(gateway(sup, mode="reference", capability="wizard", reference="domain"))
    assert refusal.startswith("Reference domain is not disclosed by wizard.")
    refusal = blocked(gateway(sup, mode="reference", capability="wayfinder", reference="domain"))
    assert refusal == "Capability wayfinder is not a standalone goalkeeper capability."
    assert "mode must be one of" in blocked(gateway(sup, mode="other"))


def test_every_work_item_gets_its_own_uuid(sup: Supervisor) -> None:
    """Two workflows in one session (start, complete, start), or in two sessions at the same
    moment: distinct UUID v4 work items."""
    first = begin(sup, "triage")["workItemId"]
    reply(act(sup, action="complete"))
    ids = {first, begin(sup, "triage")["workItemId"], begin(sup, "triage", "other")["workItemId"]}
    assert len(ids) == 3 and all(UUID4.match(i) for i in ids)


# -- the active tool ----------------------------------------------------------------------


def test_without_an_active_workflow_the_active_and_ask_tools_refuse(sup: Supervisor) -> None:
    """Nothing to transition, complete or ask about."""
    assert blocked(act(sup, action="complete")) == "No active goalkeeper workflow."
    ask = ToolCall(S, "workflow_ask", {"question": "Which?", "options": ["a", "b"]})
    assert blocked(send(sup, ask)) == "No active goalkeeper workflow."


def test_only_legal_transitions_are_accepted(sup: Supervisor) -> None:
    """Survey → research is refused with the list; → implement is recorded and replied."""
    begin(sup, "architecture")
    refusal = blocked(act(sup, action="transition", target="research"))
    assert f"Allowed next procedures: {SURVEY_NEXT}." in refusal
    actions = act(sup, action="transition", target="implement")
    saved = records(sup)
    assert len(saved) == 2 and saved[1]["procedure"] == saved[1]["phase"] == "implement"
    details = {"action": "transition", "subject": "Implementation", "state": saved[1]}
    assert reply(actions).data == details
    text = reply(actions).text or ""
    assert 'source="procedure/implement"' in text and 'source="procedure/bdd"' in text
    assert "improve-codebase-architecture" not in text.split("## Workflow state contract")[0]
    assert "Synchronous action: transitioned to implement" in text


def test_a_transition_to_a_delivered_procedure_says_so_instead(sup: Supervisor) -> None:
    """codebase-design came with the survey: the step carries the already-delivered sentence."""
    begin(sup, "architecture")
    text = reply(act(sup, action="transition", target="codebase-design")).text or ""
    assert ALREADY in text and "<procedure-source" not in text
    assert "Allowed next: improve-codebase-architecture, implement, code-review" in text


def test_loading_references_follows_the_disclosures(sup: Supervisor) -> None:
    """HTML-REPORT loads and is recorded; ADR-FORMAT is not disclosed by the survey."""
    begin(sup, "architecture")
    actions = act(sup, action="load", reference="HTML-REPORT")
    assert records(sup)[-1]["loadedReferences"] == ["HTML-REPORT"]
    assert reply(actions).data["subject"] == "loaded HTML-REPORT"
    assert 'source="procedure/HTML-REPORT"' in (reply(actions).text or "")
    assert "ADR-FORMAT is not disclosed" in blocked(act(sup, action="load", reference="ADR-FORMAT"))
    assert len(records(sup)) == 2


def test_completing_keeps_the_work_item_and_clears_the_active_state(sup: Supervisor) -> None:
    """Hard-bug completed: a terminal record with the same id; no active guidance afterwards."""
    started = begin(sup, "hard-bug")
    item = started["workItemId"]
    actions = act(sup, action="complete")
    assert reply(actions).text == (
        f"Workflow {item} completed. Persistent active state cleared. Pending: none. "
        "Next actor: agent may handle unrelated work normally."
    )
    assert records(sup)[-1] == ended(started, "completed")
    assert records(sup)[-1]["procedure"] == "diagnosing-bugs"
    assert reply(actions).data["subject"] == "Reproducing & Diagnostics completed"
    assert "goalkeeper workflow active" not in guidance(sup)
    assert blocked(act(sup, action="complete")) == "No active goalkeeper workflow."


def test_cancelling_records_the_reason(sup: Supervisor) -> None:
    """Wayfinding cancelled with its reason under the same work item; the state is cleared."""
    started = begin(sup, "wayfinding")
    actions = act(sup, action="cancel", reason="blocked externally")
    assert records(sup)[-1] == ended(started, "cancelled", reason="blocked externally")
    assert reply(actions).data["subject"] == "Initiative Mapping cancelled"
    assert "goalkeeper workflow active" not in guidance(sup)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"action": "complete", "reason": "x"}, "unexpected field(s) for complete: reason"),
        ({"action": "transition", "target": "implement", "reference": "x"}, "unexpected field(s)"),
        ({"action": "transition"}, "target is required for transition"),
        ({"action": "load", "reference": " "}, "reference is required for load"),
        ({"action": "cancel"}, "reason is required for cancel"),
        ({"action": "finish"}, "action must be one of transition, load, complete, cancel"),
    ],
)
def test_each_action_has_a_strict_shape(
    sup: Supervisor, args: dict[str, str], problem: str
) -> None:
    """Extra fields, missing arguments and unknown actions are refused, nothing recorded."""
    begin(sup, "architecture")
    assert blocked(act(sup, **args)).startswith(f"workflow_active: {problem}")
    assert len(records(sup)) == 1


def test_asking_during_a_workflow_stays_pending_without_a_ui(sup: Supervisor) -> None:
    """No dialog here: the decision stays pending and the model is told not to proceed."""
    begin(sup, "idea-to-ship")
    ask = ToolCall(S, "workflow_ask", {"question": "Ship it?", "options": ["yes", "no"]})
    answer = reply(send(sup, ask))
    assert answer.data == {"pending": True, "source": "no_ui"}
    assert answer.text == (
        "[Pending user decision] No UI is available. Do not proceed until the user responds."
    )
    vague = ToolCall(S, "workflow_ask", {"question": "Ship it?"})
    assert blocked(send(sup, vague)).startswith("workflow_ask: question and options")


# -- session start ------------------------------------------------------------------------


def test_session_start_gives_the_static_routing_guidance(sup: Supervisor) -> None:
    """Routes and model capabilities, once per window; no active-only tool is named."""
    static = [a.text for a in of(send(sup, SessionStart(S)), Advise) if a.static]
    text = "\n".join(static)
    assert "## Available goalkeeper Workflows and Capabilities" in text
    assert "- architecture: Find and develop deepening opportunities." in text
    assert "- writing-for-agents: Writing documents for agents." in text
    assert "Do not activate a workflow for routine work" in text
    assert 'start a workflow first with workflow (mode: "workflow")' in text
    assert "workflow_active" not in text and "workflow_ask" not in text
    assert "- teach:" not in text


def test_an_active_workflow_is_restored_in_full(sup: Supervisor) -> None:
    """A new context window gets the whole procedure again; the restore writes no record."""
    item = begin(sup, "hard-bug")["workItemId"]
    restored = [a.text for a in of(send(sup, SessionStart(S, "resume")), Advise) if not a.static]
    assert len(restored) == 1
    assert 'source="procedure/diagnosing-bugs"' in restored[0]
    assert "Synchronous action: restored workflow" in restored[0] and item in restored[0]
    assert len(records(sup)) == 1


def test_a_stale_workflow_is_cancelled_with_the_reason(sup: Supervisor) -> None:
    """A procedure gone from its route: cancelled under the same id, one warning, no restore."""
    started = begin(sup, "wayfinding")
    poke_active(sup, procedure="missing-procedure")
    actions = send(sup, SessionStart(S, "resume"))
    error = "Error: Procedure missing-procedure is not part of workflow wayfinding."
    reason = f"Restore validation failed: {error}"
    stale = {**started, "procedure": "missing-procedure"}
    assert records(sup)[-1] == ended(stale, "cancelled", reason=reason)
    warnings = [n.text for n in of(actions, Notify) if n.level == "warning"]
    assert warnings == [
        "Could not restore goalkeeper workflow: Procedure missing-procedure is not part of "
        "workflow wayfinding. Valid procedures for wayfinding: "
        "research, prototype, to-spec, to-tickets, implement, code-review, wayfinder."
    ]
    assert not any(not a.static for a in of(actions, Advise))
    assert "goalkeeper workflow active" not in guidance(sup)


# -- the stop -----------------------------------------------------------------------------


def test_a_stop_with_an_active_workflow_is_sent_back_once(sup: Supervisor) -> None:
    """One continuation naming the work item; the next stop is let through."""
    item = begin(sup, "architecture")["workItemId"]
    first = settle(sup)
    assert len(first) == 1 and item in first[0].text and "still active" in first[0].text
    assert settle(sup) == []


def test_a_workflow_call_or_a_user_message_rearms_the_nudge(sup: Supervisor) -> None:
    """After the model works the workflow, or the user speaks, a stop is sent back again."""
    begin(sup, "architecture")
    assert len(settle(sup)) == 1
    reply(act(sup, action="transition", target="implement"))
    assert len(settle(sup)) == 1 and settle(sup) == []
    send(sup, UserPrompt(S, "please keep going"))
    assert len(settle(sup)) == 1


def test_a_refused_workflow_call_also_rearms_the_nudge(sup: Supervisor) -> None:
    """A malformed call is still a workflow call: the next stop is sent back again."""
    begin(sup, "architecture")
    assert len(settle(sup)) == 1
    assert blocked(act(sup, action="transition"))
    assert len(settle(sup)) == 1


def test_no_nudge_after_an_aborted_or_failed_stop(sup: Supervisor) -> None:
    """A stop the user aborted or an API error ended is not sent back; an ordinary one is."""
    begin(sup, "architecture")
    assert settle(sup, aborted=True) == []
    assert settle(sup, error="overloaded") == []
    assert len(settle(sup)) == 1


def test_no_nudge_without_an_active_workflow(sup: Supervisor) -> None:
    """Nothing started, or only a capability run: stops pass."""
    assert settle(sup) == []
    reply(gateway(sup, mode="capability", capability="grilling"))
    assert settle(sup) == []


# -- tool names ---------------------------------------------------------------------------


def test_guidance_names_the_tools_as_the_host_does(tmp_path: Path) -> None:
    """Claude Code's prefixed names: the gateway in the routing guidance, the active and ask
    tools in the active guidance."""
    sup = make_sup(tmp_path, PREFIXED)
    text = "\n".join(a.text for a in of(send(sup, SessionStart(S)), Advise))
    assert "Use mcp__goalkeeper__workflow for structured engineering workflows" in text
    assert "workflow_active" not in text
    begin(sup, "hard-bug")
    text = guidance(sup)
    assert "With mcp__goalkeeper__workflow_active:" in text
    assert "Ask the user with mcp__goalkeeper__workflow_ask" in text


# -- a large loaded context (seed003 D3) ----------------------------------------------------


def _available(text: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith("- Available references: "))
    listed = line.removeprefix("- Available references: ")
    return [] if listed == "none" else listed.split(", ")


def _load_until_refused(sup: Supervisor) -> tuple[list[str], str, str]:
    """hard-bug at implement, then every reference the contract offers, in turn, until one is
    refused: (the loaded ones, the last contract, the refusal)."""
    begin(sup, "hard-bug")
    text = reply(act(sup, action="transition", target="implement")).text or ""
    loaded: list[str] = []
    while offered := _available(text):
        actions = act(sup, action="load", reference=offered[0])
        if not any(isinstance(a, Reply) for a in actions):
            return loaded, text, blocked(actions)
        loaded.append(offered[0])
        text = reply(actions).text or ""
    return loaded, text, ""


def test_a_load_past_the_cap_is_refused_with_its_size(sup: Supervisor) -> None:
    """The load that would take implement's context over 64 KiB is refused, saying so; the
    contract before it still listed what was left (it used to say "none"), the record is
    unchanged, and the next session start restores the workflow instead of cancelling it."""
    loaded, contract, refusal = _load_until_refused(sup)
    assert loaded and refusal, (loaded, refusal)
    assert "would make the workflow context of implement" in refusal
    assert "maximum is 65536" in refusal and "the workflow is unchanged" in refusal
    assert _available(contract)  # not "none" while references are left
    refused = refusal.removeprefix("Loading ").split(" ", 1)[0]
    kept = records(sup)[-1]["loadedReferences"]
    assert set(loaded) <= set(kept) and refused not in kept
    restored = send(sup, SessionStart(S, "resume"))
    assert not [n for n in of(restored, Notify) if n.level == "warning"]
    assert records(sup)[-1]["status"] == "active"
    assert any("restored workflow" in a.text for a in of(restored, Advise))


def test_a_restored_context_over_the_cap_keeps_the_workflow(sup: Supervisor) -> None:
    """A record whose loaded references no longer fit (loaded before the cap was checked, or
    the texts grew) is restored at its procedure without them, and the model is told why."""
    loaded, _, _ = _load_until_refused(sup)
    everything = [*loaded, *_available(guidance_contract(sup))]
    poke_active(sup, loadedReferences=everything)  # type: ignore[arg-type]
    actions = send(sup, SessionStart(S, "resume"))
    assert not [n for n in of(actions, Notify) if n.level == "warning"]
    step = next(a.text for a in of(actions, Advise) if "restored workflow" in a.text)
    assert 'source="procedure/implement"' in step
    assert "were not delivered again: Procedure bundle implement is" in step
    last = records(sup)[-1]
    assert (last["status"], last["procedure"], last["loadedReferences"]) == (
        "active",
        "implement",
        [],
    )


def guidance_contract(sup: Supervisor) -> str:
    """The references the active guidance offers, as a contract line."""
    text = guidance(sup)
    found = re.search(r'"reference": "<one of: ([^>]*)>"', text)
    assert found is not None, text
    return f"- Available references: {found.group(1)}"


def test_reloading_a_loaded_reference_says_it_is_loaded(sup: Supervisor) -> None:
    """seed003 D8: a second load of mocking is "already loaded", not "not disclosed"."""
    begin(sup, "hard-bug")
    act(sup, action="transition", target="implement")
    reply(act(sup, action="load", reference="mocking"))
    refusal = blocked(act(sup, action="load", reference="mocking"))
    assert refusal.startswith("Reference mocking is already loaded in this workflow (implement)")
    assert "not disclosed" not in refusal


def test_zh_sessions_read_the_call_and_resolver_errors_in_chinese(tmp_path: Path) -> None:
    """seed003 D7: a transition without a target and an undisclosed reference, in a zh session,
    are said in Chinese (they were English after a full-width colon)."""
    config = Config(no_plan="silent", lang="zh")
    zh = Supervisor(
        tmp_path, config, host="test", capabilities=CLAUDE_CAPABILITIES, clock=FakeClock()
    )
    begin(zh, "hard-bug")
    missing = blocked(act(zh, action="transition"))
    assert missing == "workflow_active：transition 需要 target"
    hidden = blocked(act(zh, action="load", reference="ADR-FORMAT"))
    assert hidden.startswith("参考 ADR-FORMAT 没有被 diagnosing-bugs 披露。可用参考：")
    extra = blocked(act(zh, action="complete", extra="x"))
    assert extra == "workflow_active：complete 不接受这些字段：extra"
