"""goalkeeper's goal skill: valid skill files in both languages, naming the workflow routes there
are, written by ``install pi`` (and ``install claude``) and removed again by uninstall, never
touching a skill the user wrote or changed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from goalkeeper.cli.app import run
from goalkeeper.skills import FILES, SKILLS, install_skills, remove_skills, skill_files
from goalkeeper.store.catalog_files import load_catalog

NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # the Agent Skills rule Pi checks


def frontmatter(text: str) -> dict[str, object]:
    assert text.startswith("---\n"), text[:40]
    head, _, _ = text[4:].partition("\n---\n")
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("rel", sorted(skill_files()))
def test_each_skill_file_has_the_frontmatter_claude_code_and_pi_need(rel: str) -> None:
    name, _, _ = rel.partition("/")
    meta = frontmatter(skill_files()[rel])
    assert meta["name"] == name and NAME.match(name) and len(name) <= 64
    description = meta["description"]
    assert isinstance(description, str) and 0 < len(description) <= 1024


def test_the_english_and_chinese_texts_cover_the_same_ground() -> None:
    """The same sections, and the same commands, files and routes in backticks."""
    for name in SKILLS:
        en, zh = (skill_files()[f"{name}/{file}"] for file in FILES)
        assert en.count("\n## ") == zh.count("\n## ") == 4

        # placeholders (<reason>, …) are translated; commands, files and routes are not
        def untranslated(text: str) -> set[str]:
            return {c for c in re.findall(r"`([^`]+)`", text) if "<" not in c and "…" not in c}

        assert untranslated(en) == untranslated(zh)
        assert "SKILL.zh.md" in en and "SKILL.md" in zh


def test_the_skill_names_exactly_the_built_in_workflow_routes(tmp_path: Path) -> None:
    routes = {r.route for r in load_catalog(tmp_path, None).catalog.routes()}
    assert routes
    for text in skill_files().values():
        section = text.split("\n## 4.", 1)[1]
        named = set(re.findall(r"^  - `([a-z-]+)`", section, re.MULTILINE))
        assert named == routes, (named, routes)


def test_install_writes_the_skills_and_remove_takes_only_its_own(tmp_path: Path) -> None:
    skills = tmp_path / ".claude" / "skills"
    added = install_skills(skills)
    assert len(added) == len(skill_files())
    for rel, text in skill_files().items():
        assert (skills / rel).read_text(encoding="utf-8") == text
    assert install_skills(skills) == []  # again: nothing to do

    mine = skills / "gk-goal-proof" / "SKILL.zh.md"
    mine.write_text("我自己的版本\n", encoding="utf-8")
    assert len(remove_skills(skills)) == len(skill_files()) - 1
    assert mine.read_text(encoding="utf-8") == "我自己的版本\n"  # the user's now
    assert install_skills(skills) == [f"added the skill file {skills / 'gk-goal-proof/SKILL.md'}"]
    assert mine.read_text(encoding="utf-8") == "我自己的版本\n"
    mine.unlink()
    remove_skills(skills)
    assert not skills.exists()  # no empty folders left behind
    assert (tmp_path / ".claude").is_dir()


def test_install_pi_writes_the_skill_where_pi_loads_it_and_uninstall_removes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "plan").mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    assert run(["-C", str(tmp_path), "install", "pi", "--json"]) == 0
    skill = tmp_path / ".pi" / "skills" / "gk-goal-proof" / "SKILL.md"
    out = json.loads(capsys.readouterr().out)
    assert f"added the skill file {skill}" in out["skills"]
    assert skill.read_text(encoding="utf-8") == skill_files()["gk-goal-proof/SKILL.md"]
    assert run(["-C", str(tmp_path), "uninstall", "pi", "--json"]) == 0
    assert f"removed the skill file {skill}" in json.loads(capsys.readouterr().out)["skills"]
    assert not (tmp_path / ".pi" / "skills").exists()

    assert run(["-C", str(tmp_path), "install", "pi", "--user"]) == 0
    assert (tmp_path / "agent" / "skills" / "gk-goal-proof" / "SKILL.zh.md").is_file()


def test_install_claude_writes_the_skill_under_claude_skills_and_uninstall_removes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "plan").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert run(["-C", str(tmp_path), "install", "claude", "--json"]) == 0
    skill = tmp_path / ".claude" / "skills" / "gk-goal-proof" / "SKILL.md"
    assert f"added the skill file {skill}" in json.loads(capsys.readouterr().out)["skills"]
    assert skill.read_text(encoding="utf-8") == skill_files()["gk-goal-proof/SKILL.md"]
    assert run(["-C", str(tmp_path), "uninstall", "claude"]) == 0
    assert f"removed the skill file {skill}" in capsys.readouterr().out
    assert not (tmp_path / ".claude" / "skills").exists()

    assert run(["-C", str(tmp_path), "install", "claude", "--user", "--json"]) == 0
    home_skill = tmp_path / "home" / ".claude" / "skills" / "gk-goal-proof" / "SKILL.md"
    assert home_skill.is_file()
