"""The workflow tool specs (catalog spec §8) built from the built-in catalog: names, enums,
guidelines and the optional session field."""

from __future__ import annotations

from pathlib import Path

import pytest

from goalkeeper.core.messages import make_say
from goalkeeper.core.workflows.catalog import Catalog
from goalkeeper.core.workflows.tools import ToolSpec, workflow_tools
from goalkeeper.store.catalog_files import load_catalog

MODEL_REACHABLE = [
    "research",
    "prototype",
    "code-review",
    "diagnosing-bugs",
    "codebase-design",
    "writing-for-agents",
    "resolving-merge-conflicts",
    "wizard",
    "grilling",
    "domain-modeling",
    "tdd",
]
say = make_say("en")


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return load_catalog(tmp_path, "").catalog


def specs(catalog: Catalog, **kwargs: bool) -> dict[str, ToolSpec]:
    return {s.name: s for s in workflow_tools(catalog, say, {}, **kwargs)}


def test_three_tools_in_order(catalog: Catalog) -> None:
    """The gateway, the active-workflow tool and the ask tool, under goalkeeper's names."""
    tools = workflow_tools(catalog, say, {})
    assert [t.name for t in tools] == ["workflow", "workflow_active", "workflow_ask"]
    assert all(t.parameters["type"] == "object" for t in tools)


def test_host_names_replace_the_tool_names(catalog: Catalog) -> None:
    """Claude Code's prefixed names are used, the gateway's guideline names its own tool."""
    names = {n: f"mcp__goalkeeper__{n}" for n in ("workflow", "workflow_active", "workflow_ask")}
    tools = workflow_tools(catalog, say, names)
    assert [t.name for t in tools] == list(names.values())
    assert "Start with mcp__goalkeeper__workflow;" in tools[0].guidelines[-1]


def test_the_gateway_route_enum_is_the_catalog_routes_in_order(catalog: Catalog) -> None:
    """Routes come from the catalog, in catalog order; modes are the three of §8.1 and `read`
    (the parts of procedure texts that did not fit the host's cap)."""
    props = specs(catalog)["workflow"].parameters["properties"]
    assert props["route"]["enum"] == [r.route for r in catalog.routes()]
    assert props["route"]["enum"] == [
        "idea-to-ship",
        "hard-bug",
        "triage",
        "wayfinding",
        "architecture",
    ]
    assert props["mode"]["enum"] == ["workflow", "capability", "reference", "read"]
    assert specs(catalog)["workflow"].parameters["required"] == ["mode"]


def test_the_capability_description_lists_the_eleven_model_reachable_ids(
    catalog: Catalog,
) -> None:
    """Exactly the model-reachable standalone ids, in catalog order; no user-only one."""
    description = specs(catalog)["workflow"].parameters["properties"]["capability"]["description"]
    assert description.endswith("(" + ", ".join(MODEL_REACHABLE) + ")")
    assert [p.id for p in catalog.model_standalone()] == MODEL_REACHABLE
    for user_only in ("teach", "setup-repository", "grill-me", "wait-what"):
        assert user_only not in description


def test_the_active_tool_has_the_four_actions(catalog: Catalog) -> None:
    """transition, load, complete, cancel, and a field for each argument."""
    active = specs(catalog)["workflow_active"].parameters
    assert active["properties"]["action"]["enum"] == ["transition", "load", "complete", "cancel"]
    assert set(active["properties"]) == {"action", "target", "reference", "reason"}
    assert active["required"] == ["action"]


def test_the_ask_tool_needs_a_question_and_options(catalog: Catalog) -> None:
    """Two to four options; title, recommended, timeout and custom answers are optional."""
    ask = specs(catalog)["workflow_ask"].parameters
    assert ask["required"] == ["question", "options"]
    assert (ask["properties"]["options"]["minItems"], ask["properties"]["options"]["maxItems"]) == (
        2,
        4,
    )


def test_the_session_field_appears_only_when_asked(catalog: Catalog) -> None:
    """Without session_field no schema has it; with it every schema does."""
    assert all("session" not in s.parameters["properties"] for s in specs(catalog).values())
    with_session = specs(catalog, session_field=True).values()
    assert all("session" in s.parameters["properties"] for s in with_session)
    assert all("session" not in s.parameters["required"] for s in with_session)


def test_described_includes_the_guidelines(catalog: Catalog) -> None:
    """For hosts without a guideline field the guidelines follow the description as bullets."""
    tools = specs(catalog)
    gateway, active, ask = tools["workflow"], tools["workflow_active"], tools["workflow_ask"]
    text = gateway.described()
    assert text.startswith(gateway.description + "\n- mode workflow: ")
    assert all(f"- {g}" in text for g in gateway.guidelines)
    assert len(gateway.guidelines) == 4
    assert '- action cancel: {"action": "cancel", "reason": "<why>"}' in active.described()
    assert ask.described() == ask.description  # no guidelines, nothing appended


def test_the_gateway_description_stays_short(catalog: Catalog) -> None:
    """The always-present gateway description stays under the spec's 345-character cap."""
    description = specs(catalog)["workflow"].description
    assert len(description) <= 345
    assert description.startswith("Start a goalkeeper engineering workflow")
