"""goalkeeper's skills: instructions an agent reads when a task calls for them (seed 001's first
layer, beside the hooks' per-event messages).

The text lives here once, as package data (``<name>/SKILL.md`` in English, ``SKILL.zh.md`` in
Chinese). Everything else is a copy made from it: the Claude Code plugin's
``skills/<name>/``, the ``.claude/skills/<name>/`` that ``goalkeeper install claude`` writes and
the ``.pi/skills/<name>/`` of ``goalkeeper install pi``. Every copy holds both files, so the
copies are identical wherever they are; Claude Code and Pi load ``SKILL.md`` and the English
text points Chinese readers at its neighbour.

Install writes a skill only where none is, and uninstall removes only files that still hold
goalkeeper's text: a skill the user wrote or changed is theirs.
"""

from __future__ import annotations

from pathlib import Path

SKILLS = ("gk-goal-proof",)
"""The skills goalkeeper ships, by folder name (which is also the frontmatter ``name``)."""
FILES = ("SKILL.md", "SKILL.zh.md")
_HERE = Path(__file__).resolve().parent


def skill_files() -> dict[str, str]:
    """Each skill file as ``<name>/<file>`` → its text."""
    return {
        f"{name}/{file}": (_HERE / name / file).read_text(encoding="utf-8")
        for name in SKILLS
        for file in FILES
    }


def install_skills(skills_dir: Path, *, dry_run: bool = False) -> list[str]:
    """Write goalkeeper's skills under ``skills_dir`` (``.claude/skills``, ``.pi/skills``, …);
    what changed. A file already there is left as it is: the same text needs nothing, other
    text is the user's (never overwritten, and never removed by ``remove_skills``)."""
    changes: list[str] = []
    for rel, text in skill_files().items():
        path = skills_dir / rel
        if path.is_symlink() or path.exists():
            continue
        if not dry_run:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        changes.append(f"added the skill file {path}")
    return changes


def remove_skills(skills_dir: Path) -> list[str]:
    """Remove the skill files that still hold goalkeeper's text, then the folders that are
    empty because of it (the skill's, and ``skills_dir`` itself); what changed."""
    changes: list[str] = []
    for rel, text in skill_files().items():
        path = skills_dir / rel
        if path.is_file() and not path.is_symlink() and _text(path) == text:
            path.unlink()
            changes.append(f"removed the skill file {path}")
    if changes:
        for folder in (*(skills_dir / name for name in SKILLS), skills_dir):
            try:
                folder.rmdir()  # only when empty
            except OSError:
                pass
    return changes


def _text(path: Path) -> str | None:
    """A file's text, or None when it is not a regular file we can read (so never ours)."""
    from goalkeeper.store.safe_read import read_capped

    try:
        return read_capped(path, 1024 * 1024).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
