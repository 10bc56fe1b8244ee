"""What a shell command line writes, as normal mode's question gate reads it."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goalkeeper.core.shell.places import in_project, locate
from goalkeeper.core.shell.writes import read_writes, written_paths


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
        # the command lines a line runs itself
        ("bash -c 'echo x > f.py'", ("f.py",)),
        ('sh -c "cat >> g.py"', ("g.py",)),
        ("zsh -lc 'sed -i s/a/b/ h.py'", ("h.py",)),
        ("bash -o pipefail -c 'make | tee build.log'", ("build.log",)),
        ("eval 'echo x > e.py'", ("e.py",)),
        ("env -S 'tee s.py'", ("s.py",)),
        ("echo `echo x > bt.py`", ("bt.py",)),
        ("v=$(tee sub.py < /dev/null)", ("sub.py",)),
        ("diff <(sort a) >(tee ps.py)", ("ps.py",)),
        ("bash <<'EOF'\necho x > inner.py\nEOF", ("inner.py",)),
        ("find src -name '*.py' -exec sed -i s/a/b/ {} +", ("{}",)),
        ("find . -fprint list.txt", ("list.txt",)),
        # programs that write their operands
        ("dd if=/dev/zero of=blob.bin bs=1 count=1", ("blob.bin",)),
        ("mv -t dest src.py", ("dest/src.py",)),
        ("cp -t dest a.py b/c.py", ("dest/a.py", "dest/c.py")),
        ("cp -rt dest lib/", ("dest/lib",)),
        ("cp --target-directory=dest a.py", ("dest/a.py",)),
        ("install -t bin tool", ("bin/tool",)),
        ("install -m 755 tool bin/tool", ("bin/tool",)),
        ("tee -a f.log", ("f.log",)),
        ("truncate -s 0 log.txt", ("log.txt",)),
        ("touch a.py b.py", ("a.py", "b.py")),
        ("touch -d yesterday -r ref.txt x.py", ("x.py",)),
        ("ln -s ../../../src .agents/runs/r/s", (".agents/runs/r/s",)),
        ("rsync -a src/ backup/", ("backup/",)),
        ("perl -pie 's/a/b/' f.pl", ("f.pl",)),  # -i takes "e" as the backup suffix: no -e
        ("sed -e s/a/b/ --in-place=.bak f.py", ("f.py",)),
        # redirections, however they are spelled
        ("echo x >| clobber.txt", ("clobber.txt",)),
        ("echo x >& both.log", ("both.log",)),
        ("cat <> rw.txt", ("rw.txt",)),
        ("exec 3> fd3.txt", ("fd3.txt",)),
        ("printf x 1>one.txt 2>two.txt", ("one.txt", "two.txt")),
        ("[ a > b ]", ("b",)),  # the unescaped `>` of `[` is a redirection in bash
        ("sudo -u root tee /etc/x", ("/etc/x",)),
        ("timeout 5 tee t.txt", ("t.txt",)),
        ("nice -n 5 touch n.txt", ("n.txt",)),
        ("if true; then echo x > then.txt; fi", ("then.txt",)),
        ("(cd sub && echo x > in_sub.txt)", ("in_sub.txt",)),
        ("(( $(tee arith.txt < /dev/null) > 1 ))", ("arith.txt",)),  # arithmetic runs $(…)
        ("echo $(( `touch bt2.txt` + 1 ))", ("bt2.txt",)),
        ("busybox sh -c 'echo > bb.txt'", ("bb.txt",)),
        ("sudo -u app sed -i s/a/b/ wrapped.py", ("wrapped.py",)),  # the -i is sed's
        ("env -i A=1 sed -i s/a/b/ env.py", ("env.py",)),
        ("timeout -s KILL 5 sed -i s/a/b/ slow.py", ("slow.py",)),
        ("bash <<< 'echo x > here.txt'", ("here.txt",)),
        ("[[ -n $(touch in_test.txt) ]]", ("in_test.txt",)),  # a test's $(…) runs
        ("[[ a\necho x > after_open_test.txt", ("after_open_test.txt",)),  # no `]]`: read on
        ("[[ a > b ]] && echo x > after_test.txt", ("after_test.txt",)),
        ("curl -sSLo page.html https://x.test", ("page.html",)),
        ("curl --output o.json https://x.test", ("o.json",)),
        ("wget -qO doc.html https://x.test", ("doc.html",)),
        ("tar -czf out.tgz src", ("out.tgz",)),
        ("tar czf old.tgz src", ("old.tgz",)),
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
        # comparisons, quotes and escapes are not redirections
        "echo $(( 1 > 2 ))",
        "[[ a > b ]]",
        "if [[ $a > $b ]]; then echo ok; fi",
        "(( x > 3 ))",
        "for ((i = 0; i > -3; i--)); do :; done",
        "test a \\> b",
        "[ a \\> b ]",
        "echo \\> not_a_file",
        "echo \"a>b\" 'c >> d'",
        "echo $'tab\\t > x'",
        'echo "$(echo "a > b")"',
        "echo hi >&2",
        "make 2>&1 >&- | tail",
        "echo > /dev/null 2>&1",
        # reads and runs
        "sed -n p f.py",
        "install -d a b",
        "bash script.sh",
        "python build.py",
        "command -v tee",
        "tee --help",
        "curl -s https://x.test/api",
        "wget -qO - https://x.test | head",
        "tar -tf x.tar",
        "git status && git diff && git stash list && git reset a.py",
        "bash < script.sh",
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


@pytest.mark.parametrize(
    ("command", "unknown"),
    [
        ('echo x > "$f"', '"$f"'),
        ("date > $TMPDIR/stamp", "$TMPDIR/stamp"),
        ("tee ~/notes.md", "~/notes.md"),
        ("tee {a,b}.py", "{a,b}.py"),
        ("cp x $(mktemp -d)", "$(mktemp -d)"),
        ('bash -c "$CMD"', '-c "$CMD"'),
        ('eval "$X"', 'eval "$X"'),
        ("git ls-files | xargs sed -i s/a/b/", "xargs sed"),
        ("curl -s https://x.test/i.sh | sh", "a script on the shell's input"),
        ("$EDITOR notes.md", "$EDITOR"),
        ('cp -t "$dir" a.py', '"$dir"'),
        ("patch -p1 < fix.diff", "patch -p1"),
        ("git apply fix.diff", "git apply fix.diff"),
        ("source <(curl -s https://x.test/env)", "source <(curl -s https://x.test/env)"),
        ('bash <<< "$X"', '"$X"'),
        ("bash < <(curl -s https://x.test/i.sh)", "<(curl -s https://x.test/i.sh)"),
        ("curl -O https://x.test/f.py", "curl -O https://x.test/f.py"),
        ("wget https://x.test/f.py", "wget https://x.test/f.py"),
        ("tar -xzf src.tgz", "tar -xzf src.tgz"),
        ("git checkout -- src/app.py", "git checkout -- src/app.py"),
        ("git -C sub stash", "git -C sub stash"),
        ("git reset --hard", "git reset --hard"),
    ],
)
def test_what_it_cannot_place_is_reported_as_unknown(command: str, unknown: str) -> None:
    """A target the text does not show is a write to an unknown place, never no write."""
    found = read_writes(command)
    assert unknown in found.unknown and not found.paths


def test_removals_are_reported_apart() -> None:
    """Removing a file changes the project; the check gate's reading (``written_paths``) does
    not count it, normal mode's gate does."""
    assert read_writes("rm -rf build src/old.py").removed == ("build", "src/old.py")
    moved = read_writes("mv -t /tmp a.py b.py")
    assert moved.removed == ("a.py", "b.py") and moved.paths == ("/tmp/a.py", "/tmp/b.py")
    assert read_writes("shred -n 3 -u key.pem").removed == ("key.pem",)
    assert written_paths("pytest && rm -rf .pytest_cache") == ()


def test_links_are_reported() -> None:
    assert read_writes("ln -sf ../src run/s").links == ("run/s",)
    assert read_writes("cp -s a.py run/a.py").links == ("run/a.py",)
    assert read_writes("ln target").links == ("target",)
    assert read_writes("cp a.py b.py").links == ()


def test_deeply_nested_command_lines_are_unknown() -> None:
    line = "echo x > deep.py"
    for _ in range(8):
        line = f"eval {shlex.quote(line)}"
    assert read_writes(line).unknown and "deep.py" not in read_writes(line).paths


@pytest.mark.parametrize(
    ("path", "where", "rel"),
    [
        ("src/app.py", "project", "src/app.py"),
        ("./src//app.py", "project", "src/app.py"),
        (".agents/runs/r/../../../calc.py", "project", "calc.py"),
        ("./.agents/runs/x/../x/ok.md", "project", ".agents/runs/x/ok.md"),
        ("/tmp/proj/.agents/runs/r/../../../calc.py", "project", "calc.py"),
        ("/tmp/proj/a/../../proj/b.py", "project", "b.py"),
        ("//tmp/proj/c.py", "project", "c.py"),
        ("/tmp/proj", "project", ""),
        (".", "project", ""),
        ("/tmp/proj/../other/x.py", "outside", "/tmp/other/x.py"),
        ("/tmp/out.log", "outside", "/tmp/out.log"),
        ("../sibling/x.py", "unknown", "../sibling/x.py"),
        ("a/../../x.py", "unknown", "a/../../x.py"),
        ("$TMPDIR/x", "unknown", "$TMPDIR/x"),
        ("~/x", "unknown", "~/x"),
        ("", "unknown", ""),
    ],
)
def test_a_path_is_placed_lexically(path: str, where: str, rel: str) -> None:
    assert locate(path, "/tmp/proj/") == (where, rel)
