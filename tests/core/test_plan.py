"""The plan parser (seed 000 §4): SWOT, objective, key results and the user story map."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goalkeeper.core.cadence.plan import (
    Progress,
    classify_heading,
    detect_lang,
    parse_cancel_reason,
    parse_objective,
    parse_plan,
    parse_progress,
)

# ---------------------------------------------------------------------------------------------
# A whole plan, in each language
# ---------------------------------------------------------------------------------------------

ZH_PLAN = """\
# 一键部署

## SWOT

S：解析器已经有测试覆盖
W：还没有真实用户
O：下周的演示日
T：竞品先发布

## 目标（Objective）

让新用户 5 分钟内完成第一次部署。其余是背景说明。

## 关键结果（Key Results）

- [ ] 首次部署耗时：基线 30 → 目标 5 分钟（当前 12）
- [x] 文档页上线
- [-] 支持 Windows（取消：本季度不做）

## 用户故事地图

- [x] 安装
  - [x] pip 安装
- [ ] 部署
  - [x] 配置
  - [ ] 推送
"""

EN_PLAN = """\
# One-command deploy

## SWOT

S: the parser is covered by tests
W: no real users yet
O: demo day next week
T: a competitor ships first

## Objective

New users finish their first deploy within 5 minutes. The rest is background.

## Key Results

- [ ] First deploy time: baseline 30, target 5, current 12
- [x] Docs page live
- [-] Windows support (cancelled: not this quarter)

## User Story Map

- [x] Install
  - [x] pip install
- [ ] Deploy
  - [x] configure
  - [ ] push
"""


def test_chinese_plan_parses_every_section() -> None:
    """A Chinese plan yields its SWOT, objective, key results and map leaves, in Chinese."""
    plan = parse_plan(ZH_PLAN)
    assert plan.lang == "zh"
    assert plan.sections == {"swot", "objective", "key_results", "map"}
    assert plan.swot.S == "解析器已经有测试覆盖"
    assert plan.swot.T == "竞品先发布"
    assert plan.objective == "让新用户 5 分钟内完成第一次部署。"
    assert [kr.state for kr in plan.key_results] == ["open", "done", "cancelled"]
    assert [(leaf.text, leaf.state) for leaf in plan.leaves] == [
        ("pip 安装", "done"),
        ("配置", "done"),
        ("推送", "open"),
    ]


def test_english_plan_parses_every_section() -> None:
    """An English plan yields the same structure as its Chinese twin."""
    plan = parse_plan(EN_PLAN)
    assert plan.lang == "en"
    assert plan.sections == {"swot", "objective", "key_results", "map"}
    assert plan.swot.O == "demo day next week"
    assert plan.objective == "New users finish their first deploy within 5 minutes."
    assert [kr.state for kr in plan.key_results] == ["open", "done", "cancelled"]
    assert [leaf.text for leaf in plan.open_leaves] == ["push"]


def test_open_key_results_lists_only_open_ones() -> None:
    """``open_key_results`` holds the open key results and nothing else."""
    plan = parse_plan(EN_PLAN)
    assert [kr.text for kr in plan.open_key_results] == [
        "First deploy time: baseline 30, target 5, current 12"
    ]


def test_empty_text_gives_an_empty_plan() -> None:
    """Empty text parses to a plan with no sections, items or objective."""
    plan = parse_plan("")
    assert plan.sections == frozenset()
    assert plan.objective is None
    assert plan.key_results == ()
    assert plan.leaves == ()


def test_items_outside_plan_sections_are_ignored() -> None:
    """Checklists under other headings are neither key results nor map leaves."""
    plan = parse_plan("## Notes\n- [ ] not a key result\n## Backlog\n- [ ] not a leaf\n")
    assert plan.key_results == ()
    assert plan.leaves == ()


# ---------------------------------------------------------------------------------------------
# Headings and language
# ---------------------------------------------------------------------------------------------


def test_classify_heading_knows_chinese_and_english_titles() -> None:
    """Each plan section is recognised from its Chinese or English heading."""
    assert classify_heading("SWOT") == "swot"
    assert classify_heading("目标（Objective）") == "objective"
    assert classify_heading("Objective") == "objective"
    assert classify_heading("关键结果（Key Results）") == "key_results"
    assert classify_heading("Key Results") == "key_results"
    assert classify_heading("用户故事地图") == "map"
    assert classify_heading("User Story Map") == "map"


def test_classify_heading_ignores_case() -> None:
    """Headings are matched without regard to case."""
    assert classify_heading("key results") == "key_results"
    assert classify_heading("USER STORY MAP") == "map"
    assert classify_heading("swot") == "swot"


def test_classify_heading_returns_none_for_other_titles() -> None:
    """A heading that opens no plan section classifies as None."""
    assert classify_heading("Notes") is None
    assert classify_heading("") is None


def test_detect_lang_is_zh_with_cjk_text() -> None:
    """Text with CJK characters is Chinese; plain Latin text is English."""
    assert detect_lang("## 目标\n让用户满意") == "zh"
    assert detect_lang("## Objective\nMake users happy") == "en"


def test_heading_with_closing_hashes_is_recognised() -> None:
    """An ATX heading with closing ``#`` characters still opens its section."""
    plan = parse_plan("## Key Results ##\n- [ ] a\n")
    assert [kr.text for kr in plan.key_results] == ["a"]


def test_same_level_heading_ends_a_section() -> None:
    """A following heading of the same level ends the section."""
    plan = parse_plan("## Key Results\n- [ ] a\n## Notes\n- [ ] b\n")
    assert [kr.text for kr in plan.key_results] == ["a"]


def test_higher_level_heading_ends_a_section() -> None:
    """A following heading of a higher level ends the section."""
    plan = parse_plan("## Key Results\n- [ ] a\n# Appendix\n- [ ] b\n")
    assert [kr.text for kr in plan.key_results] == ["a"]


def test_deeper_heading_stays_inside_a_section() -> None:
    """A deeper sub-heading does not end the section it sits in."""
    plan = parse_plan("## Key Results\n- [ ] a\n### Details\n- [ ] b\n")
    assert [kr.text for kr in plan.key_results] == ["a", "b"]


# ---------------------------------------------------------------------------------------------
# SWOT
# ---------------------------------------------------------------------------------------------


def test_swot_with_full_width_colons() -> None:
    """``S：`` with a full-width colon takes the rest of the line."""
    plan = parse_plan("## SWOT\nS：强项\nW：弱项\nO：机会\nT：威胁\n")
    assert (plan.swot.S, plan.swot.W, plan.swot.O, plan.swot.T) == ("强项", "弱项", "机会", "威胁")


def test_swot_with_half_width_colons() -> None:
    """``S:`` with a half-width colon takes the rest of the line."""
    plan = parse_plan("## SWOT\nS: strong\nW: weak\nO: chance\nT: threat\n")
    assert (plan.swot.S, plan.swot.W, plan.swot.O, plan.swot.T) == (
        "strong",
        "weak",
        "chance",
        "threat",
    )


def test_swot_letters_in_lower_case() -> None:
    """Lower-case letters ``s:``/``w：`` are read like upper-case ones."""
    plan = parse_plan("## SWOT\ns: strong\nw：弱项\no: chance\nt: threat\n")
    assert (plan.swot.S, plan.swot.W, plan.swot.O, plan.swot.T) == (
        "strong",
        "弱项",
        "chance",
        "threat",
    )


def test_swot_takes_only_the_first_line() -> None:
    """A SWOT value is its first line; continuation lines are dropped."""
    plan = parse_plan("## SWOT\nS: first line\nmore detail on a second line\n")
    assert plan.swot.S == "first line"


def test_swot_first_occurrence_of_a_letter_wins() -> None:
    """When a letter appears twice, the first value is kept."""
    plan = parse_plan("## SWOT\nS: first\nS: second\n")
    assert plan.swot.S == "first"


def test_swot_bare_label_takes_the_next_line() -> None:
    """A bare ``S：`` label takes the next non-empty line as its value."""
    plan = parse_plan("## SWOT\nS：\n\n解析器已经可用\n")
    assert plan.swot.S == "解析器已经可用"


def test_swot_bare_label_takes_a_bullet_value_without_its_bullet() -> None:
    """A bare label followed by a bullet takes the bullet's text."""
    plan = parse_plan("## SWOT\nW:\n- no users yet\n- second weakness\n")
    assert plan.swot.W == "no users yet"


def test_swot_bare_label_followed_by_another_label_stays_empty() -> None:
    """A bare label directly followed by the next label gets no value."""
    plan = parse_plan("## SWOT\nS:\nW: weak\n")
    assert plan.swot.S is None
    assert plan.swot.W == "weak"


def test_swot_labels_as_bullets_with_glosses() -> None:
    """Bulleted labels with a gloss, ``- O（机会）：…`` or ``- T (threat): …``, are read."""
    plan = parse_plan("## SWOT\n- O（机会）：演示日\n- T (threat): rival\n")
    assert plan.swot.O == "演示日"
    assert plan.swot.T == "rival"


def test_swot_missing_letters_stay_none() -> None:
    """Letters the plan does not give stay None."""
    plan = parse_plan("## SWOT\nS: strong\n")
    assert (plan.swot.W, plan.swot.O, plan.swot.T) == (None, None, None)


def test_swot_labels_outside_the_swot_section_are_ignored() -> None:
    """``S:`` lines under another heading do not fill the SWOT."""
    plan = parse_plan("## Notes\nS: not swot\n")
    assert plan.swot.S is None


def test_swot_bold_label_value_has_no_leftover_emphasis() -> None:
    """``**S：** 强项`` (bold label, colon inside) yields just the value."""
    plan = parse_plan("## SWOT\n**S：** 强项\n")
    assert plan.swot.S == "强项"


# ---------------------------------------------------------------------------------------------
# Objective
# ---------------------------------------------------------------------------------------------


def test_objective_first_chinese_sentence() -> None:
    """A Chinese objective ends at its first ``。``."""
    plan = parse_plan("## 目标（Objective）\n让用户一键部署，无需看文档。其余说明。\n")
    assert plan.objective == "让用户一键部署，无需看文档。"


def test_objective_first_english_sentence() -> None:
    """An English objective ends at its first full stop followed by a space."""
    plan = parse_plan("## Objective\nUsers deploy in one command. Everything else follows.\n")
    assert plan.objective == "Users deploy in one command."


def test_objective_does_not_split_on_a_version_number() -> None:
    """A dot inside ``v1.2`` does not end the sentence."""
    plan = parse_plan("## Objective\nShip v1.2 to every user. Then more.\n")
    assert plan.objective == "Ship v1.2 to every user."


def test_objective_does_not_split_on_a_decimal() -> None:
    """A decimal such as ``3.5`` does not end the sentence."""
    plan = parse_plan("## Objective\nMake builds 3.5 times faster. Details below.\n")
    assert plan.objective == "Make builds 3.5 times faster."


def test_objective_ends_at_an_exclamation_mark() -> None:
    """``!`` or ``！`` also ends the first sentence."""
    assert parse_objective(["Deploy in one step! Really."]) == "Deploy in one step!"
    assert parse_objective(["一键部署！真的。"]) == "一键部署！"


def test_objective_without_punctuation_is_the_whole_paragraph() -> None:
    """With no sentence end, the objective is the first paragraph joined into one line."""
    plan = parse_plan("## Objective\nUsers deploy\nin one command\n\nSecond paragraph.\n")
    assert plan.objective == "Users deploy in one command"


def test_objective_strips_an_o_label() -> None:
    """An ``O:`` or ``目标：`` label before the sentence is dropped."""
    assert parse_objective(["O: Users deploy fast."]) == "Users deploy fast."
    assert parse_objective(["目标：用户快速部署。"]) == "用户快速部署。"


def test_objective_strips_bullets_and_quotes() -> None:
    """A bullet or block-quote marker before the objective is dropped."""
    assert parse_objective(["", "- Users deploy fast."]) == "Users deploy fast."
    assert parse_objective(["> Users deploy fast."]) == "Users deploy fast."


def test_objective_empty_section_is_none() -> None:
    """An objective section with no text gives None."""
    assert parse_plan("## Objective\n\n## Key Results\n").objective is None
    assert parse_objective([]) is None


def test_english_objective_heading() -> None:
    """``## Objective`` opens the objective section."""
    assert parse_plan("## Objective\nShip it.\n").objective == "Ship it."


def test_chinese_objective_heading() -> None:
    """``## 目标（Objective）`` opens the objective section."""
    assert parse_plan("## 目标（Objective）\n上线。\n").objective == "上线。"


# ---------------------------------------------------------------------------------------------
# Key results: checklist states
# ---------------------------------------------------------------------------------------------


def _krs(body: str, heading: str = "## Key Results") -> list[tuple[str, str]]:
    return [(kr.text, kr.state) for kr in parse_plan(f"{heading}\n{body}").key_results]


def test_kr_open_checkbox() -> None:
    """``- [ ]`` is an open key result."""
    assert _krs("- [ ] a\n") == [("a", "open")]


def test_kr_done_lower_x() -> None:
    """``- [x]`` is a done key result."""
    assert _krs("- [x] a\n") == [("a", "done")]


def test_kr_done_upper_x() -> None:
    """``- [X]`` is done too."""
    assert _krs("- [X] a\n") == [("a", "done")]


def test_kr_cancelled_checkbox() -> None:
    """``- [-]`` is a cancelled key result."""
    assert _krs("- [-] a\n") == [("a", "cancelled")]


def test_kr_star_and_plus_bullets() -> None:
    """``*`` and ``+`` bullets work like ``-``."""
    assert _krs("* [x] a\n+ [ ] b\n") == [("a", "done"), ("b", "open")]


def test_kr_numbered_items() -> None:
    """Ordered-list items ``1.`` and ``2)`` are key results too."""
    assert _krs("1. [x] a\n2) [ ] b\n") == [("a", "done"), ("b", "open")]


def test_kr_chinese_heading() -> None:
    """``## 关键结果（Key Results）`` opens the key-results section."""
    assert _krs("- [ ] 首屏 3 → 1 秒\n", "## 关键结果（Key Results）") == [
        ("首屏 3 → 1 秒", "open")
    ]


def test_kr_line_numbers_are_one_based() -> None:
    """Each key result records its 1-based line number in the file."""
    plan = parse_plan("## Key Results\n\n- [ ] a\n- [x] b\n")
    assert [kr.line for kr in plan.key_results] == [3, 4]


def test_kr_empty_item_is_skipped() -> None:
    """A checkbox with no text is not a key result."""
    assert _krs("- [ ]\n- [ ] real\n") == [("real", "open")]


def test_kr_plain_top_level_bullet_counts_as_open() -> None:
    """A top-level plain bullet is a key result nobody can tick: open, without a checkbox."""
    plan = parse_plan("## Key Results\n- [x] a\n- plain outcome\n")
    plain = plan.key_results[1]
    assert (plain.text, plain.state, plain.checkbox) == ("plain outcome", "open", False)


def test_kr_nested_plain_bullets_are_notes() -> None:
    """Plain bullets nested under a key result are notes, not key results."""
    assert _krs("- [x] a\n  - evidence: test_a passes\n  - see PR 12\n") == [("a", "done")]


def test_kr_nested_checkbox_is_a_key_result() -> None:
    """A checkbox nested under a key result is itself a key result."""
    assert _krs("- [x] a\n  - [ ] a.1\n") == [("a", "done"), ("a.1", "open")]


def test_kr_paragraph_text_is_not_a_key_result() -> None:
    """Prose in the key-results section is ignored."""
    assert _krs("Some intro text.\n- [ ] a\n") == [("a", "open")]


# ---------------------------------------------------------------------------------------------
# Key results: cancellation reasons
# ---------------------------------------------------------------------------------------------


def test_cancelled_kr_with_chinese_reason() -> None:
    """``（取消：理由）`` gives the reason of a cancelled key result."""
    (kr,) = parse_plan("## Key Results\n- [-] 支持 Windows（取消：本季度不做）\n").key_results
    assert kr.reason == "本季度不做"


def test_cancelled_kr_with_english_reason() -> None:
    """``(cancelled: reason)`` gives the reason of a cancelled key result."""
    (kr,) = parse_plan(
        "## Key Results\n- [-] Windows support (cancelled: not this quarter)\n"
    ).key_results
    assert kr.reason == "not this quarter"


def test_cancelled_kr_without_reason() -> None:
    """A bare ``- [-]`` has no reason."""
    (kr,) = parse_plan("## Key Results\n- [-] Windows support\n").key_results
    assert kr.reason is None


def test_cancelled_kr_with_figures_in_parentheses_has_no_reason() -> None:
    """A trailing ``(current 40)`` is a progress figure, not a cancellation reason."""
    (kr,) = parse_plan("## Key Results\n- [-] Signups 0 → 100 (current 40)\n").key_results
    assert kr.reason is None


def test_open_kr_never_has_a_reason() -> None:
    """Only cancelled items carry a reason, whatever their text says."""
    (kr,) = parse_plan("## Key Results\n- [ ] a (cancelled: no)\n").key_results
    assert kr.reason is None


def test_parse_cancel_reason_forms() -> None:
    """Reasons are read from ``取消：``, ``cancelled:``, a dash or a trailing parenthesis."""
    assert parse_cancel_reason("x（取消：不需要）") == "不需要"
    assert parse_cancel_reason("x (cancelled: not needed)") == "not needed"
    assert parse_cancel_reason("x (Cancelled - duplicate)") == "duplicate"
    assert parse_cancel_reason("x — superseded by y") == "superseded by y"
    assert parse_cancel_reason("x (out of scope)") == "out of scope"


def test_parse_cancel_reason_none_without_reason() -> None:
    """Plain text has no cancellation reason."""
    assert parse_cancel_reason("Windows support") is None
    assert parse_cancel_reason("") is None


# ---------------------------------------------------------------------------------------------
# Key results: progress figures
# ---------------------------------------------------------------------------------------------


def test_progress_unicode_arrow() -> None:
    """``30 → 5`` reads as baseline 30, target 5."""
    assert parse_progress("Deploy time 30 → 5 min") == Progress(30, 5, None)


def test_progress_ascii_arrow() -> None:
    """``0 -> 10`` reads like the Unicode arrow."""
    assert parse_progress("Signups 0 -> 10") == Progress(0, 10, None)


def test_progress_arrow_with_current() -> None:
    """``0 → 10 (current 4)`` also gives the current figure."""
    assert parse_progress("Signups 0 → 10 (current 4)") == Progress(0, 10, 4)


def test_progress_arrow_with_chinese_current() -> None:
    """``3 → 1 秒（当前 2）`` gives the current figure in Chinese."""
    assert parse_progress("首屏 3 → 1 秒（当前 2）") == Progress(3, 1, 2)


def test_progress_labelled_english() -> None:
    """``baseline 0, target 10, current 4`` gives all three figures."""
    assert parse_progress("baseline 0, target 10, current 4") == Progress(0, 10, 4)


def test_progress_labelled_english_with_colons() -> None:
    """Labels may be followed by a colon: ``baseline: 0 target: 10 current: 4``."""
    assert parse_progress("baseline: 0 target: 10 current: 4") == Progress(0, 10, 4)


def test_progress_labelled_chinese() -> None:
    """``基线 0，目标 10，当前 4`` gives all three figures."""
    assert parse_progress("基线 0，目标 10，当前 4") == Progress(0, 10, 4)


def test_progress_labelled_chinese_with_full_width_colons() -> None:
    """``基线：0 目标：10 当前：4`` gives all three figures."""
    assert parse_progress("基线：0 目标：10 当前：4") == Progress(0, 10, 4)


def test_progress_labels_mixed_with_an_arrow() -> None:
    """``基线 30 → 目标 5`` uses the labelled numbers around the arrow."""
    assert parse_progress("基线 30 → 目标 5 分钟（当前 12）") == Progress(30, 5, 12)


def test_progress_decimals() -> None:
    """Decimal figures keep their fraction."""
    assert parse_progress("p95 1.5 → 0.25 s") == Progress(1.5, 0.25, None)


def test_progress_units_and_percentages() -> None:
    """Units glued to numbers (``300ms``, ``40%``) do not hide the figures."""
    assert parse_progress("p95 300ms → 100ms") == Progress(300, 100, None)
    assert parse_progress("coverage 40% → 80%") == Progress(40, 80, None)


def test_progress_current_only() -> None:
    """A lone ``current 5`` gives only the current figure."""
    assert parse_progress("current 5") == Progress(None, None, 5)


def test_progress_none_without_figures() -> None:
    """Text without figures has no progress."""
    assert parse_progress("Docs page live") is None


def test_kr_carries_its_progress() -> None:
    """A parsed key result carries the figures of its text."""
    (kr,) = parse_plan("## Key Results\n- [ ] Signups 0 → 100 (current 40)\n").key_results
    assert kr.progress == Progress(0, 100, 40)


def test_kr_without_figures_has_no_progress() -> None:
    """A key result without figures has ``progress`` None."""
    (kr,) = parse_plan("## Key Results\n- [x] Docs page live\n").key_results
    assert kr.progress is None


def test_progress_label_inside_a_word_is_not_a_target() -> None:
    """``to`` inside ``photo`` is not a target label: ``Tags per photo 1 → 5`` targets 5."""
    assert parse_progress("Tags per photo 1 → 5") == Progress(1, 5, None)


def test_progress_label_inside_a_word_is_not_a_current() -> None:
    """``at`` inside ``Heartbeat`` is not a current label."""
    assert parse_progress("Heartbeat 30 → 10 s") == Progress(30, 10, None)


# ---------------------------------------------------------------------------------------------
# User story map
# ---------------------------------------------------------------------------------------------


def _leaves(body: str, heading: str = "## User Story Map") -> list[tuple[str, str]]:
    return [(leaf.text, leaf.state) for leaf in parse_plan(f"{heading}\n{body}").leaves]


def test_map_only_leaves_count() -> None:
    """Parents are not leaves; only the innermost items are."""
    assert _leaves("- [ ] slice\n  - [x] a\n  - [ ] b\n") == [("a", "done"), ("b", "open")]


def test_map_chinese_heading() -> None:
    """``## 用户故事地图`` opens the map section."""
    assert _leaves("- [ ] 注册\n", "## 用户故事地图") == [("注册", "open")]


def test_map_top_level_item_without_children_is_a_leaf() -> None:
    """A top-level item with no children is itself a leaf."""
    assert _leaves("- [x] a\n- [ ] b\n") == [("a", "done"), ("b", "open")]


def test_map_deep_tree_leaves_and_paths() -> None:
    """Leaves of a deep tree record their ancestors, outermost first."""
    plan = parse_plan("## User Story Map\n- [ ] slice\n  - [ ] step\n    - [ ] task\n")
    (leaf,) = plan.leaves
    assert (leaf.text, leaf.path) == ("task", ("slice", "step"))


def test_map_done_parent_with_open_children_keeps_leaves_open() -> None:
    """A ``[x]`` parent does not close its open children."""
    assert _leaves("- [x] slice\n  - [ ] a\n  - [x] b\n") == [("a", "open"), ("b", "done")]


def test_map_open_parent_with_done_children_is_closed() -> None:
    """An open parent whose leaves are all done leaves nothing open."""
    plan = parse_plan("## User Story Map\n- [ ] slice\n  - [x] a\n  - [x] b\n")
    assert plan.open_leaves == ()


def test_map_cancelled_subtree_cancels_every_leaf() -> None:
    """A ``[-]`` node cancels every leaf below it, whatever their own marks."""
    body = "- [-] slice 2 (cancelled: later)\n  - [ ] a\n    - [x] a.1\n  - [ ] b\n"
    assert _leaves(body) == [("a.1", "cancelled"), ("b", "cancelled")]


def test_map_cancelled_subtree_sets_cancelled_by() -> None:
    """Leaves cancelled by an ancestor name it in ``cancelled_by`` and carry its reason."""
    plan = parse_plan("## User Story Map\n- [-] slice 2（取消：延后）\n  - [ ] 分享\n")
    (leaf,) = plan.leaves
    assert leaf.cancelled_by == "slice 2（取消：延后）"
    assert leaf.reason == "延后"


def test_map_cancelled_leaf_has_its_own_reason() -> None:
    """A cancelled leaf carries its own reason and no ``cancelled_by``."""
    plan = parse_plan("## User Story Map\n- [-] share (cancelled: no demand)\n")
    (leaf,) = plan.leaves
    assert (leaf.state, leaf.reason, leaf.cancelled_by) == ("cancelled", "no demand", None)


def test_map_cancelled_leaf_without_reason() -> None:
    """A bare ``[-]`` leaf is cancelled with no reason."""
    (leaf,) = parse_plan("## User Story Map\n- [-] share\n").leaves
    assert (leaf.state, leaf.reason) == ("cancelled", None)


def test_map_cancellation_does_not_leak_to_siblings() -> None:
    """A cancelled subtree ends where its indentation ends."""
    body = "- [-] old (cancelled: no)\n  - [ ] a\n- [ ] new\n  - [ ] b\n"
    assert _leaves(body) == [("a", "cancelled"), ("b", "open")]


def test_map_plain_bullet_leaf_counts_as_open() -> None:
    """A plain bullet leaf cannot be ticked, so it is open."""
    assert _leaves("- slice\n  - [x] a\n  - b\n") == [("a", "done"), ("b", "open")]


def test_map_headings_inside_the_map_become_the_path() -> None:
    """A sub-heading inside the map is the first element of its leaves' paths."""
    plan = parse_plan("## User Story Map\n### Slice 1\n- [ ] a\n### Slice 2\n- [x] b\n  - [ ] c\n")
    assert [(leaf.text, leaf.path) for leaf in plan.leaves] == [
        ("a", ("Slice 1",)),
        ("c", ("Slice 2", "b")),
    ]


def test_map_leaf_line_numbers() -> None:
    """Each leaf records its 1-based line number."""
    plan = parse_plan("## User Story Map\n- [ ] a\n  - [ ] b\n")
    assert [leaf.line for leaf in plan.leaves] == [3]


def test_map_star_and_plus_bullets() -> None:
    """``*`` and ``+`` bullets build the tree like ``-``."""
    assert _leaves("* [ ] slice\n  + [X] a\n") == [("a", "done")]


# ---------------------------------------------------------------------------------------------
# Thematic breaks, code, comments
# ---------------------------------------------------------------------------------------------


def test_thematic_break_ends_the_key_results() -> None:
    """``---`` ends the section: later checkboxes are not key results."""
    assert _krs("- [ ] a\n---\n- [ ] after\n") == [("a", "open")]


def test_thematic_break_forms() -> None:
    """``***``, ``___`` and ``- - -`` end a section as ``---`` does."""
    for rule in ("***", "___", "- - -"):
        assert _krs(f"- [ ] a\n{rule}\n- [ ] after\n") == [("a", "open")]


def test_thematic_break_ends_the_map() -> None:
    """A thematic break ends the map: later items are not leaves."""
    assert _leaves("- [ ] a\n\n---\n\n- [ ] after\n") == [("a", "open")]


def test_thematic_break_ends_the_swot() -> None:
    """A thematic break ends the SWOT section."""
    plan = parse_plan("## SWOT\nS: strong\n---\nW: not swot\n")
    assert plan.swot.W is None


def test_backtick_fence_is_ignored() -> None:
    """Checkboxes inside a ``` fence are not key results."""
    assert _krs("- [ ] a\n```\n- [ ] example\n```\n- [x] b\n") == [("a", "open"), ("b", "done")]


def test_tilde_fence_is_ignored() -> None:
    """Checkboxes inside a ~~~ fence are not key results."""
    assert _krs("- [ ] a\n~~~\n- [ ] example\n~~~\n- [x] b\n") == [("a", "open"), ("b", "done")]


def test_fence_with_info_string_is_ignored() -> None:
    """A fence with an info string (```markdown) still hides its content."""
    assert _krs("```markdown\n- [ ] example\n```\n- [x] b\n") == [("b", "done")]


def test_an_unclosed_fence_does_not_hide_the_rest() -> None:
    """A fence that never closes is read as text, so what follows still counts: an open key
    result or leaf after a stray ``` holds the close (seed000 D2)."""
    text = "- [ ] a\n```\n- [ ] example\n## User Story Map\n- [ ] leaf\n"
    assert _krs(text) == [("a", "open"), ("example", "open")]
    plan = parse_plan("```\n## Key Results\n- [ ] KR1 open 0 -> 1\n## User Story Map\n- [ ] leaf\n")
    assert [kr.text for kr in plan.open_key_results] == ["KR1 open 0 -> 1"]
    assert [leaf.text for leaf in plan.open_leaves] == ["leaf"]
    closed = parse_plan("## Key Results\n```\n- [ ] example\n```\n- [ ] real\n")
    assert [kr.text for kr in closed.key_results] == ["real"]  # a closed fence still hides


def test_many_unclosed_fences_stay_linear() -> None:
    """Fences that never close, one after another (each longer): bounded re-reads, then every
    fence line is text."""
    text = "\n".join("`" * (3 + i) for i in range(3000)) + "\n## Key Results\n- [ ] x\n"
    assert [kr.text for kr in parse_plan(text).key_results] == ["x"]


def test_shorter_fence_does_not_close_a_longer_one() -> None:
    """A ``` line does not close a ```` fence."""
    assert _krs("````\n```\n- [ ] example\n```\n````\n- [x] b\n") == [("b", "done")]


def test_other_fence_char_does_not_close_a_fence() -> None:
    """A ~~~ line does not close a ``` fence."""
    assert _krs("```\n~~~\n- [ ] example\n```\n- [x] b\n") == [("b", "done")]


def test_headings_inside_a_fence_are_ignored() -> None:
    """A heading inside fenced code opens no section."""
    plan = parse_plan("```\n## Key Results\n- [ ] example\n```\n")
    assert plan.sections == frozenset()
    assert plan.key_results == ()


def test_map_items_inside_a_fence_are_ignored() -> None:
    """Map items inside fenced code are not leaves."""
    assert _leaves("- [x] a\n~~~\n- [ ] example\n~~~\n") == [("a", "done")]


def test_swot_inside_a_fence_is_ignored() -> None:
    """``S:`` lines inside fenced code do not fill the SWOT."""
    plan = parse_plan("## SWOT\n```\nS: example\n```\nS: real\n")
    assert plan.swot.S == "real"


def test_fence_nested_in_a_list_item_is_ignored() -> None:
    """A fence indented to a nested list item's content column still hides its content."""
    body = "- [ ] a\n  - notes:\n    ```\n    - [ ] example line\n    ```\n"
    assert _krs(body) == [("a", "open")]


def test_multi_line_html_comment_is_ignored() -> None:
    """Checkboxes inside a multi-line HTML comment are not key results."""
    assert _krs("- [ ] a\n<!--\n- [ ] hidden\n-->\n- [x] b\n") == [("a", "open"), ("b", "done")]


def test_single_line_html_comment_is_ignored() -> None:
    """A one-line HTML comment hides its content."""
    assert _krs("<!-- - [ ] hidden -->\n- [x] b\n") == [("b", "done")]


def test_html_comment_hides_headings() -> None:
    """A heading inside an HTML comment opens no section."""
    plan = parse_plan("<!--\n## Key Results\n- [ ] hidden\n-->\n")
    assert plan.key_results == ()


# ---------------------------------------------------------------------------------------------
# Tolerance: line endings, BOM, tabs, frontmatter
# ---------------------------------------------------------------------------------------------


def test_crlf_line_endings() -> None:
    """A CRLF file parses like its LF twin."""
    assert parse_plan(EN_PLAN.replace("\n", "\r\n")) == parse_plan(EN_PLAN)


def test_lone_cr_line_endings() -> None:
    """Old-style ``\\r`` line endings parse like LF."""
    assert parse_plan(EN_PLAN.replace("\n", "\r")) == parse_plan(EN_PLAN)


def test_bom_is_ignored() -> None:
    """A leading byte-order mark does not hide the first heading."""
    plan = parse_plan("\ufeff## Key Results\n- [ ] a\n")
    assert [kr.text for kr in plan.key_results] == ["a"]


def test_tabs_indent_map_children() -> None:
    """Tab indentation builds the same tree as spaces."""
    plan = parse_plan("## User Story Map\n- [ ] root\n\t- [ ] child\n\t\t- [x] grandchild\n")
    (leaf,) = plan.leaves
    assert (leaf.text, leaf.state, leaf.path) == ("grandchild", "done", ("root", "child"))


def test_tab_after_bullet_is_accepted() -> None:
    """A tab between the bullet and the checkbox is tolerated."""
    assert _krs("-\t[x]\tdone\n") == [("done", "done")]


def test_yaml_frontmatter_is_skipped() -> None:
    """YAML frontmatter (``key: value`` lines) is metadata: nothing in it is parsed."""
    plan = parse_plan("---\ntitle: deploy\ntags:\n  - ops\n---\n## Key Results\n- [ ] a\n")
    assert [kr.text for kr in plan.key_results] == ["a"]


def test_a_leading_rule_is_not_frontmatter() -> None:
    """``---`` that opens a plan and ends its first section is a rule: the headings and items
    between are plan content (seed000 D3)."""
    plan = parse_plan(
        "---\n## Key Results\n- [ ] KR1 open 0 -> 1\n---\n## User Story Map\n- [x] d\n"
    )
    assert [kr.text for kr in plan.open_key_results] == ["KR1 open 0 -> 1"]
    mixed = parse_plan("---\ntitle: x\n## Key Results\n- [ ] in it\n---\n")
    assert [kr.text for kr in mixed.key_results] == ["in it"]


def test_an_okr_heading_opens_the_key_results() -> None:
    """`## OKR` / `## OKRs` are the key results (seed000 D7)."""
    for heading in ("OKR", "OKRs", "okr"):
        plan = parse_plan(f"## {heading}\nO: ship\n- [ ] KR1: 0 -> 1\n")
        assert [kr.text for kr in plan.open_key_results] == ["KR1: 0 -> 1"], heading


def test_yaml_frontmatter_keeps_line_numbers() -> None:
    """Line numbers count the frontmatter lines."""
    plan = parse_plan("---\ntitle: deploy\n---\n## Key Results\n- [ ] a\n")
    assert plan.key_results[0].line == 5


# ---------------------------------------------------------------------------------------------
# Property tests
# ---------------------------------------------------------------------------------------------

PLAN_LINES = st.sampled_from(
    [
        "## SWOT",
        "## 目标（Objective）",
        "## Objective",
        "## 关键结果（Key Results）",
        "## Key Results",
        "## 用户故事地图",
        "## User Story Map",
        "### Slice",
        "# Title",
        "S：强项",
        "w: weak",
        "O:",
        "- [ ] open item 0 → 10 (current 4)",
        "  - [x] done child",
        "    * [-] cancelled grandchild（取消：理由）",
        "\t+ [X] tabbed",
        "- [-]",
        "- plain",
        "1. [ ] numbered",
        "---",
        "```",
        "~~~",
        "````python",
        "<!--",
        "-->",
        "> quoted",
        "\ufeff",
        "",
        "基线：0 目标：10 当前：4",
        "Ship v1.2. Done!",
    ]
)
PLAN_TEXTS = st.one_of(
    st.text(),
    st.lists(st.one_of(PLAN_LINES, st.text(max_size=20)), max_size=40).map("\n".join),
    st.lists(PLAN_LINES, max_size=40).map("\r\n".join),
)


@settings(max_examples=300)
@given(PLAN_TEXTS)
def test_parse_plan_never_raises_and_states_are_valid(text: str) -> None:
    """Any text parses without raising, and every item state is open, done or cancelled."""
    plan = parse_plan(text)
    states = {kr.state for kr in plan.key_results} | {leaf.state for leaf in plan.leaves}
    assert states <= {"open", "done", "cancelled"}
    assert plan.lang in ("en", "zh")


@given(st.text())
def test_parse_progress_and_reason_never_raise(text: str) -> None:
    """The figure and reason helpers accept any text."""
    parse_progress(text)
    parse_cancel_reason(text)
    classify_heading(text)


def test_map_notes_under_a_checklist_item_are_not_leaves() -> None:
    """A plain bullet under a ticked story is a note (evidence), not an open leaf."""
    plan = parse_plan(
        "## User Story Map\n- Slice 1\n  - [x] user exports\n"
        "    - evidence: tests/test_export.py passes\n    - see PR 12\n  - plain story\n"
    )
    assert [(leaf.text, leaf.state) for leaf in plan.leaves] == [
        ("user exports", "done"),
        ("plain story", "open"),
    ]


def test_map_sub_heading_starts_a_new_tree() -> None:
    """Items under a new sub-heading never hang below the previous heading's items."""
    plan = parse_plan("## User Story Map\n### Slice A\n- [ ] a1\n### Slice B\n  - [ ] b1\n")
    assert [(leaf.text, leaf.path) for leaf in plan.leaves] == [
        ("a1", ("Slice A",)),
        ("b1", ("Slice B",)),
    ]


def test_target_users_heading_is_not_the_objective() -> None:
    """'目标用户' (target users) is not the objective section; '目标：…' is."""
    assert classify_heading("目标用户") is None
    assert classify_heading("目标：v1") == "objective"
    assert classify_heading("Objective (v1)") == "objective"


def test_thousands_separator_in_figures() -> None:
    """1,000 is a thousand; 0,5 is a decimal comma."""
    assert parse_progress("signups 1,000 → 25,000") == Progress(1000.0, 25000.0, None)
    assert parse_progress("ratio 0,5 → 0,9") == Progress(0.5, 0.9, None)


def test_chinese_objective_lines_join_without_a_space() -> None:
    """A Chinese sentence wrapped over two lines is joined as written."""
    objective = parse_objective(["让用户在一分钟内", "导出报告。以后再说。"])
    assert objective == "让用户在一分钟内导出报告。"
