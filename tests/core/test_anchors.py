"""The plan's anchors: the few lines re-fed to the model every turn."""

from __future__ import annotations

from goalkeeper.core.cadence.anchors import render_anchors
from goalkeeper.core.cadence.plan import parse_plan
from goalkeeper.core.messages import Say, make_say

PLAN = """\
## SWOT
S: fast parser
W: no users yet
O: demo day
T: a competitor
## Objective
New users deploy in one command. Background follows.
## Key Results
- [ ] Deploy time 30 → 5 min (current 12)
- [x] Docs page live
- [ ] Signups 0 → 100
## User Story Map
### Slice 1
- [x] Install
  - [x] pip install
- [ ] Deploy
  - [x] configure
  - [ ] push
  - [ ] rollback
"""

EN = make_say("en")
ZH = make_say("zh")


def _anchors(text: str = PLAN, say: Say = EN) -> str:
    return render_anchors(parse_plan(text), "plan/deploy.md", say)


def test_anchors_name_the_plan_path() -> None:
    """The first line says which plan file the anchors come from."""
    assert _anchors().splitlines()[0] == EN("anchors.header", path="plan/deploy.md")


def test_anchors_name_the_objective() -> None:
    """The objective's first sentence is an anchor."""
    assert "New users deploy in one command." in _anchors()
    assert "Background follows" not in _anchors()


def test_anchors_name_open_krs_only() -> None:
    """Open key results are listed; done ones are not."""
    text = _anchors()
    assert "Deploy time 30 → 5 min" in text
    assert "Signups 0 → 100" in text
    assert "Docs page live" not in text


def test_anchors_show_kr_figures() -> None:
    """A key result with a current figure shows its progress figures."""
    figures = EN("anchors.progress", current="12", baseline="30", target="5")
    assert figures in _anchors()


def test_anchors_omit_figures_without_current() -> None:
    """A key result without a current figure is shown without a progress bracket."""
    line = next(line for line in _anchors().splitlines() if "Signups" in line)
    assert "Signups 0 → 100" in line
    assert EN("anchors.progress", current="?", baseline="0", target="100") not in line


def test_anchors_cap_the_number_of_krs() -> None:
    """Beyond three open key results, the rest are counted, not listed."""
    krs = "".join(f"- [ ] kr{i}\n" for i in range(5))
    text = _anchors(f"## Key Results\n{krs}")
    assert "kr2" in text
    assert "kr3" not in text
    assert EN("anchors.krs_more", n=2) in text


def test_anchors_name_the_next_open_leaf_with_its_path() -> None:
    """The first open leaf is named with its heading and ancestors."""
    assert "Slice 1 › Deploy › push" in _anchors()
    assert "rollback" not in _anchors()


def test_anchors_say_when_the_map_is_closed() -> None:
    """When every leaf is done or cancelled, the anchors say the map is closed."""
    text = _anchors("## User Story Map\n- [x] a\n- [-] b (cancelled: later)\n")
    assert EN("anchors.map_done") in text.splitlines()


def test_anchors_have_no_map_line_without_a_map() -> None:
    """A plan without a map has no map anchor."""
    text = _anchors("## Objective\nShip it.\n")
    assert EN("anchors.map_done") not in text
    assert len(text.splitlines()) == 2


def test_anchors_name_the_swot() -> None:
    """The SWOT lines are anchors, each with its letter."""
    text = _anchors()
    for part in ("S: fast parser", "W: no users yet", "O: demo day", "T: a competitor"):
        assert part in text


def test_anchors_skip_missing_swot_letters() -> None:
    """Only the SWOT letters the plan gives are shown."""
    text = _anchors("## SWOT\nT: a competitor\n")
    assert "T: a competitor" in text
    assert "S:" not in text


def test_anchors_of_an_empty_plan_are_the_header_only() -> None:
    """An empty plan has only the header line."""
    assert _anchors("") == EN("anchors.header", path="plan/deploy.md")


def test_anchors_clip_long_text() -> None:
    """A very long objective is clipped with an ellipsis."""
    text = _anchors("## Objective\n" + "x" * 500 + "\n")
    line = next(line for line in text.splitlines() if "xxx" in line)
    assert line.endswith("…")
    assert len(line) < 300


def test_anchors_in_chinese() -> None:
    """With the Chinese catalog, the anchors use Chinese labels and keep the plan's text."""
    text = _anchors(
        "## 目标（Objective）\n让用户一键部署。\n## 关键结果（Key Results）\n"
        "- [ ] 首屏 3 → 1 秒（当前 2）\n",
        ZH,
    )
    assert text.splitlines()[0] == ZH("anchors.header", path="plan/deploy.md")
    assert ZH("anchors.objective", objective="让用户一键部署。") in text
    assert ZH("anchors.progress", current="2", baseline="3", target="1") in text
