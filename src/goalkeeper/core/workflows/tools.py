"""The workflow tools as hosts declare them (catalog spec §8): names, texts and input schemas.

One definition for every surface (the MCP server, the Pi bridge), built from the catalog so the
route list and the capability list are always the catalog's own. The schemas are flat objects
(model APIs want an object at the root) and loose on purpose: the workflow guard checks each
call's exact shape and says what is wrong, which teaches the model more than a schema error.
Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from goalkeeper.core.messages import Say
from goalkeeper.core.workflows.catalog import Catalog

GATEWAY = "workflow"
ACTIVE = "workflow_active"
ASK = "workflow_ask"


class ToolSpec(Struct, frozen=True):
    name: str
    label: str
    description: str
    snippet: str
    guidelines: tuple[str, ...]
    parameters: dict[str, Any]

    def described(self) -> str:
        """The description with its guidelines, for hosts without a guideline field (MCP)."""
        if not self.guidelines:
            return self.description
        return self.description + "\n" + "\n".join(f"- {g}" for g in self.guidelines)


def workflow_tools(
    catalog: Catalog, say: Say, names: Mapping[str, str], *, session_field: bool = False
) -> tuple[ToolSpec, ...]:
    """``session_field``: each schema also accepts the ``session`` the Claude Code hook adds."""
    gateway, active, ask = (names.get(n, n) for n in (GATEWAY, ACTIVE, ASK))
    routes = [r.route for r in catalog.routes()]
    capabilities = [p.id for p in catalog.model_standalone()]
    session = (
        {"session": {"type": "string", "description": "filled in by goalkeeper; leave it out"}}
        if session_field
        else {}
    )
    gateway_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "mode": {
                "type": "string",
                "enum": ["workflow", "capability", "reference", "read"],
                "description": " ".join(
                    f"{m}: {say(f'workflow.tool.gateway.mode.{m}')}"
                    for m in ("workflow", "capability", "reference", "read")
                ),
            },
            "route": {
                "type": "string",
                "enum": routes,
                "description": say("workflow.tool.gateway.route"),
            },
            "capability": {
                "type": "string",
                "description": f"{say('workflow.tool.gateway.capability')} "
                f"({', '.join(capabilities)})",
            },
            "reference": {"type": "string", "description": say("workflow.tool.gateway.reference")},
            **session,
        },
        "required": ["mode"],
    }
    active_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["transition", "load", "complete", "cancel"]},
            "target": {"type": "string", "description": say("workflow.tool.active.target")},
            "reference": {"type": "string", "description": say("workflow.tool.active.reference")},
            "reason": {"type": "string", "description": say("workflow.tool.active.reason")},
            **session,
        },
        "required": ["action"],
    }
    ask_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "question": {"type": "string"},
            "options": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
            "recommended": {"type": "string"},
            "timeout_seconds": {"type": "number"},
            "allow_custom": {"type": "boolean"},
            **session,
        },
        "required": ["question", "options"],
    }
    return (
        ToolSpec(
            gateway,
            "Workflow (goalkeeper)",
            say("workflow.tool.gateway"),
            say("workflow.tool.gateway.snippet"),
            tuple(
                say(f"workflow.tool.gateway.guideline.{k}", gateway=gateway)
                for k in ("workflow", "capability", "reference", "start")
            ),
            gateway_schema,
        ),
        ToolSpec(
            active,
            "Active Workflow (goalkeeper)",
            say("workflow.tool.active"),
            say("workflow.tool.active.snippet"),
            tuple(
                say(f"workflow.tool.active.guideline.{k}")
                for k in ("transition", "load", "complete", "cancel")
            ),
            active_schema,
        ),
        ToolSpec(
            ask,
            "Ask (goalkeeper)",
            say("workflow.tool.ask"),
            say("workflow.tool.ask.snippet"),
            (),
            ask_schema,
        ),
    )
