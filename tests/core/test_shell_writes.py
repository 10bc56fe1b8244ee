"""What a shell command line writes, as normal mode's question gate reads it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goalkeeper.core.shell.writes import in_project, written_paths


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo hi > a.py", ("a.py",)),
        ("echo hi>a.py", ("a.py",)),
        ("printf x >> notes.md; ls", ("notes.md",)),
        ("make &> build.log", ("build.log",)),
        ("cat > src/app.py <<'EOF'\nif a > b: pass\nEOF", ("src/app.py",)),
        ('echo "x" > "my file.py"', ("my file.py",)),
        ("echo x | tee -a conf.ini other.cfg", ("conf.ini", "other.cfg")),
        ("echo x | sudo tee /etc/hosts >/dev/null", ("/etc/hosts",)),
        ("sed -i 's/a/b/' f.py", ("f.py",)),
        ("sed -i.bak -e 's/a/b/' f.py g.py", ("f.py", "g.py")),
        ("sed --in-place 's/a/b/' f.py", ("f.py",)),
        ("perl -pi -e 's/a/b/' lib.pl", ("lib.pl",)),
        ("cp template.py src/new.py", ("src/new.py",)),
        ("mv -f old.py new.py && git add -A", ("new.py",)),
        ("FOO=1 tee out.txt < in.txt", ("out.txt",)),
    ],
)
def test_writes_are_found(command: str, expected: tuple[str, ...]) -> None:
    assert written_paths(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "pytest -q 2>&1 | tail -5",
        "ls 2>/dev/null",
        "sed -n 1,5p f.py",
        "echo 'a -> b'",
        'echo "x > y"',
        "grep -c '>' file.txt",
        "python - <<'PY'\nopen('x', 'w').write('y > z')\nPY",
        "cat a.py | head",
        "",
    ],
)
def test_reads_runs_and_scratch_writes_are_not_writes(command: str) -> None:
    assert written_paths(command) == ()


@given(st.text(max_size=200))
def test_any_text_is_read_without_raising(command: str) -> None:
    assert isinstance(written_paths(command), tuple)


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("src/app.py", True),
        ("./app.py", True),
        ("/tmp/proj/src/app.py", True),
        ("/tmp/proj", True),
        ("/tmp/out.log", False),
        ("/tmp/project-other/x.py", False),
        ("$TMPDIR/x", False),
        ("~/notes.md", False),
    ],
)
def test_scratch_space_outside_the_project_is_not_code(path: str, inside: bool) -> None:
    assert in_project(path, "/tmp/proj/") is inside
