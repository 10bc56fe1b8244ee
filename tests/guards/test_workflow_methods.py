"""The original method texts reach the model with goalkeeper's framing beside them, never in
them: a reading note before the procedure blocks (how `/name`, "the name skill" and SKILL.md map
to the catalog and its tools), the front matter left out, and a procedure's goalkeeper duties
(the orchestration contract of implement and code-review, catalog spec §13) after its blocks."""

from __future__ import annotations

from pathlib import Path

from goalkeeper.config import Config
from goalkeeper.engine.supervisor import Supervisor
from goalkeeper.testing import CLAUDE_CAPABILITIES, FakeClock
from tests.guards.test_workflow import PREFIXED, act, gateway, make_sup, reply

HEAD = "The procedure texts below are the original methods, unchanged"
IMPLEMENT_DUTIES = ("one integration owner", "same candidate", "still active")
REVIEW_DUTIES = ("Review-only", "including REWORK", "Refute-before-PASS")


def test_a_started_route_reads_the_originals_through_goalkeeper(tmp_path: Path) -> None:
    """hard-bug: the reading note (with this host's tool names) comes before the first block;
    the diagnosing-bugs original is delivered without its front matter."""
    sup = make_sup(tmp_path, PREFIXED)
    text = reply(gateway(sup, mode="workflow", route="hard-bug")).text
    assert HEAD in text and "mcp__goalkeeper__workflow_active" in text
    assert "mcp__goalkeeper__workflow_ask" in text
    assert text.index(HEAD) < text.index('<procedure-source id="diagnosing-bugs"')
    assert "disable-model-invocation" not in text and "\nname: diagnosing-bugs" not in text
    assert not any(duty in text for duty in (*IMPLEMENT_DUTIES, *REVIEW_DUTIES))


def test_implement_and_code_review_carry_goalkeepers_orchestration_duties(tmp_path: Path) -> None:
    """The upstream implement and code-review texts say nothing of integration owners or
    review-only tasks; goalkeeper's notes for them follow their blocks, once each."""
    sup = make_sup(tmp_path)
    gateway(sup, mode="workflow", route="hard-bug")
    implement = reply(act(sup, action="transition", target="implement")).text
    for duty in IMPLEMENT_DUTIES:
        assert duty in implement
    assert implement.index("## goalkeeper: implement") > implement.index("</procedure-source>")
    assert "Use /tdd where possible, at pre-agreed seams." in implement  # the original itself
    review = reply(act(sup, action="transition", target="code-review")).text
    for duty in REVIEW_DUTIES:
        assert duty in review
    assert "## goalkeeper: implement" not in review  # delivered already: not again


def test_a_standalone_capability_is_framed_too_and_in_chinese(tmp_path: Path) -> None:
    """The note is the session's language; the method text stays as its authors wrote it."""
    config = Config(no_plan="silent", lang="zh")
    sup = Supervisor(
        tmp_path, config, host="test", capabilities=CLAUDE_CAPABILITIES, clock=FakeClock()
    )
    text = reply(gateway(sup, mode="capability", capability="code-review")).text
    assert "下面的流程文本是原始方法，未作改动" in text
    assert "## goalkeeper：code-review" in text and "Refute-before-PASS" in text
