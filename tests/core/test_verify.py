"""Verify commands, prose kinds, failure signatures and test fingerprints (seed 004 §4.5–§4.6,
notes §11)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goalkeeper.core.goals.verify import (
    DEFAULT_TEST_GLOBS,
    VerifyRequest,
    command_kind,
    failing_lines,
    failure_headline,
    failure_signature,
    is_test_path,
    matches_glob,
    parse_verify_commands,
    prose_verify_kinds,
    verify_request,
)
from goalkeeper.core.text.mdcode import inline_code_spans

# ---------------------------------------------------------------------------------------------
# Verify commands
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("goal", "commands"),
    [
        ("npm run check 通过", ("npm run check",)),
        ("npm test 全部通过 且 lint 干净", ("npm test",)),
        ("tsc --noEmit 无错误", ("tsc --noEmit",)),
        ("所有测试通过", ()),
        ("构建无错误", ()),
    ],
)
def test_seed_examples(goal: str, commands: tuple[str, ...]) -> None:
    """The goal examples of seed 004 §4.5 parse to their commands (or to none)."""
    assert parse_verify_commands(goal) == commands


def test_backticked_command() -> None:
    """A command in backticks is taken whole, even with words prose would stop at."""
    assert parse_verify_commands("make `pytest -k 'parser and lexer'` pass") == (
        "pytest -k 'parser and lexer'",
    )


def test_backticks_that_are_not_commands_are_ignored() -> None:
    """A file name or identifier in backticks is not a command."""
    assert parse_verify_commands("fix `parse_args()` in `cli.py`") == ()


def test_backticked_package_manager_needs_a_subcommand() -> None:
    """``npm`` alone is not a check; ``npm ci && npm test`` is."""
    assert parse_verify_commands("use `npm` for `npm ci && npm test`") == ("npm ci && npm test",)


def test_backticked_command_with_prompt_and_env() -> None:
    """A shell prompt is dropped and an environment prefix kept."""
    assert parse_verify_commands("run `$ CI=1 npm test`") == ("CI=1 npm test",)


def test_code_spans_pair_equal_backtick_runs() -> None:
    """A span runs from n backticks to the next run of exactly n, as in CommonMark."""
    line = "a `b` ``c`d`` e `"
    assert [line[s:e] for s, e in inline_code_spans(line)] == ["`b`", "``c`d``"]
    assert inline_code_spans("`" * 10000) == ()


def test_config_file_names_are_not_commands() -> None:
    """A file name like "mypy.ini" is not the mypy command."""
    assert parse_verify_commands("configure mypy.ini and pytest.ini properly") == ()


def test_fenced_command_lines() -> None:
    """Each command line of a fenced block counts, in order."""
    text = "make these pass:\n```sh\nnpm run lint\nnpm test\n```\n"
    assert parse_verify_commands(text) == ("npm run lint", "npm test")


@pytest.mark.parametrize(
    ("goal", "commands"),
    [
        ("npm run build passes", ("npm run build",)),
        ("pnpm lint is clean", ("pnpm lint",)),
        ("yarn test passes", ("yarn test",)),
        ("npx vitest run passes", ("npx vitest",)),
        ("npx tsc --noEmit, then ship", ("npx tsc --noEmit",)),
        ("pytest passes", ("pytest",)),
        ("pytest -q tests/core passes", ("pytest -q tests/core",)),
        ("python -m pytest -x passes", ("python -m pytest -x",)),
        ("uv run pytest -q passes", ("uv run pytest -q",)),
        ("mypy src is clean", ("mypy src",)),
        ("mypy --strict passes", ("mypy --strict",)),
        ("ruff check . is clean", ("ruff check .",)),
        ("make test passes", ("make test",)),
        ("make check 通过", ("make check",)),
        ("cargo test passes", ("cargo test",)),
        ("cargo clippy -- -D warnings is clean", ("cargo clippy -- -D warnings",)),
        ("go test ./... passes", ("go test ./...",)),
        ("go vet ./... is clean", ("go vet ./...",)),
        ("gradle test passes", ("gradle test",)),
        ("./gradlew test passes", ("./gradlew test",)),
        ("mvn test passes", ("mvn test",)),
    ],
)
def test_prose_command_shapes(goal: str, commands: tuple[str, ...]) -> None:
    """Known command shapes are found in prose and cut where the prose resumes."""
    assert parse_verify_commands(goal) == commands


@pytest.mark.parametrize(
    "goal",
    [
        "make sure the parser works",
        "make all tests pass",
        "make it faster",
        "use yarn to install it",
        "go test the parser by hand",
        "tsc complains less",
        "npm run",
    ],
)
def test_prose_that_only_looks_like_a_command(goal: str) -> None:
    """Phrases like "make sure" and "go test the parser" are English, not commands."""
    assert parse_verify_commands(goal) == ()


@pytest.mark.parametrize(
    ("goal", "command"),
    [
        ("pytest and ruff pass", "pytest"),
        ("pytest 且 ruff", "pytest"),
        ("pytest通过", "pytest"),
        ("pytest passes", "pytest"),
        ("pytest is clean", "pytest"),
        ("pytest 无错误", "pytest"),
        ("pytest, then ship", "pytest"),
        ("pytest，然后发布", "pytest"),
        ("pytest; ship", "pytest"),
        ("run pytest.", "pytest"),
        ("pytest on the parser", "pytest"),
    ],
)
def test_commands_stop_at_prose_boundaries(goal: str, command: str) -> None:
    """Conjunctions, "passes", "is clean", "通过", "无错误", commas and semicolons end a command."""
    assert parse_verify_commands(goal) == (command,)


def test_flag_values_are_kept() -> None:
    """A plain word after a flag is the flag's value, not prose."""
    assert parse_verify_commands("pytest -k parser passes") == ("pytest -k parser",)


def test_commands_in_order_and_deduplicated() -> None:
    """Several commands come in the order written, each once."""
    text = "npm test passes and `npm run lint` is clean, and npm test again; then cargo test"
    assert parse_verify_commands(text) == ("npm test", "npm run lint", "cargo test")


def test_several_prose_commands() -> None:
    """Two prose commands joined by "and" are both found."""
    assert parse_verify_commands("go test ./... and go vet ./... pass") == (
        "go test ./...",
        "go vet ./...",
    )


# ---------------------------------------------------------------------------------------------
# Prose kinds
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("goal", "kinds"),
    [
        ("all tests pass", ("tests",)),
        ("the suite is green", ("tests",)),
        ("unit tests are passing", ("tests",)),
        ("测试全部通过", ("tests",)),
        ("所有测试通过", ("tests",)),
        ("mypy clean", ("types",)),
        ("the code type-checks", ("types",)),
        ("类型检查通过", ("types",)),
        ("lint clean", ("lint",)),
        ("lint 干净", ("lint",)),
        ("no lint errors", ("lint",)),
        ("it builds", ("build",)),
        ("the project compiles", ("build",)),
        ("构建无错误", ("build",)),
        ("编译通过", ("build",)),
        (
            "all tests pass, mypy is clean, lint clean and it builds",
            ("tests", "types", "lint", "build"),
        ),
        ("make the parser faster", ()),
        ("让解析器更快", ()),
    ],
)
def test_prose_kinds(goal: str, kinds: tuple[str, ...]) -> None:
    """A prose goal names the kinds of check it asks for, in a fixed order."""
    assert prose_verify_kinds(goal) == kinds


def test_prose_kinds_follow_a_fixed_order() -> None:
    """Kinds come as tests, types, lint, build whatever order the goal names them in."""
    assert prose_verify_kinds("构建无错误，类型检查通过，测试全部通过") == (
        "tests",
        "types",
        "build",
    )


# ---------------------------------------------------------------------------------------------
# Failing lines and signatures
# ---------------------------------------------------------------------------------------------

PYTEST_RUN = """\
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0
rootdir: {root}
collected 3 items

tests/test_parse.py .F.                                                  [100%]

=================================== FAILURES ===================================
_________________________________ test_empty __________________________________

tmp_path = PosixPath('{tmp}')

    def test_empty(tmp_path):
>       assert parse("") == Plan(), f"{{tmp_path}}"
E       AssertionError: {tmp}
E       assert <Plan object at {addr}> == Plan()

tests/test_parse.py:12: AssertionError
=========================== short test summary info ============================
FAILED tests/test_parse.py::test_empty - AssertionError: {tmp}
========================= 1 failed, {passed} passed in {secs}s =========================
"""


def _pytest_run(
    tmp: str = "/tmp/pytest-of-ann/pytest-12/test_empty0",
    addr: str = "0x7f3a2c1b9e50",
    secs: str = "0.12",
    passed: int = 2,
    root: str = "/home/ann/project",
) -> str:
    return PYTEST_RUN.format(tmp=tmp, addr=addr, secs=secs, passed=passed, root=root)


def test_pytest_failing_lines() -> None:
    """pytest's FAILED, E and summary lines are the failure, normalized and sorted."""
    assert failing_lines(_pytest_run()) == (
        "E AssertionError: <tmp>",
        "E assert <Plan object at 0x?> == Plan()",
        "FAILED tests/test_parse.py::test_empty - AssertionError: <tmp>",
        "summary: 1 failed",
        "tests/test_parse.py:12: AssertionError",
    )


def test_same_failure_with_other_timings_paths_and_addresses() -> None:
    """The same failure with different timings, temp paths and addresses has one signature."""
    first = _pytest_run()
    second = _pytest_run(
        tmp="/tmp/pytest-of-bob/pytest-7/test_empty0",
        addr="0x55d1e2f3a4b0",
        secs="3.71",
        root="/srv/ci/checkout",
    )
    assert failure_signature(first) == failure_signature(second)


def test_passing_count_does_not_change_the_signature() -> None:
    """A test added or passing elsewhere does not make the same failure a new one."""
    assert failure_signature(_pytest_run(passed=2)) == failure_signature(_pytest_run(passed=9))


def test_quiet_pytest_summary_keeps_only_failures() -> None:
    """pytest -q's bare "1 failed, 2 passed in 0.1s" line is a summary too."""
    assert failing_lines("1 failed, 2 passed in 0.12s") == ("summary: 1 failed",)
    assert failure_signature("1 failed, 2 passed in 0.1s") == failure_signature(
        "1 failed, 7 passed in 3s"
    )


def test_different_failing_test_different_signature() -> None:
    """Another failing test is another failure."""
    other = _pytest_run().replace("test_empty", "test_blank")
    assert failure_signature(_pytest_run()) != failure_signature(other)


def test_signature_is_short_hex() -> None:
    """A signature is 16 hexadecimal characters."""
    signature = failure_signature(_pytest_run())
    assert len(signature) == 16 and int(signature, 16) >= 0


@pytest.mark.parametrize(
    "line",
    [
        "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
        "src/goalkeeper/core/plan.py:12: error: Incompatible return value type",
        "error[E0308]: mismatched types",
        "Error: Cannot find module './x'",
        "  ✕ parses empty input (3 ms)",
        "  ✗ parses empty input",
        "FAIL src/parse.test.ts",
        "--- FAIL: TestParse (0.00s)",
        "FAIL\tgithub.com/acme/parse\t0.012s",
        "AssertionError: expected 1 to equal 2",
        "TypeError: x is not a function",
        "src/a.py:1:8: F401 [*] `os` imported but unused",
        "F401 [*] `os` imported but unused",
        "  3:5  error  'x' is not defined  no-undef",
        "thread 'main' panicked at src/main.rs:2:5:",
        "test result: FAILED. 3 passed; 1 failed; 0 ignored",
        "npm ERR! Test failed.",
        "  2 failing",
        "ERROR tests/test_x.py - ImportError: no module named x",
    ],
)
def test_failure_line_shapes(line: str) -> None:
    """Each runner's failure line is recognised."""
    assert failing_lines(f"starting\n{line}\ndone\n")


def test_passing_output_has_no_failing_lines() -> None:
    """A clean run's output carries no failure."""
    assert failing_lines("collected 3 items\n\n3 passed in 0.02s\nSuccess: no issues found") == ()


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("FAILED t.py::x - in 0.12s", "FAILED t.py::x - in 31s"),
        ("FAIL x.test.ts (123 ms)", "FAIL x.test.ts (9 ms)"),
        ("error: build took 3s", "error: build took 12.5s"),
        ("--- FAIL: TestX (0.00s)", "--- FAIL: TestX (1.25s)"),
        ("2024-05-01T10:11:12.345Z error: boom", "2025-01-09T23:59:01Z error: boom"),
        ("[10:11:12] error: boom", "[23:01:59] error: boom"),
        ("Error: at 0x7fdeadbeef01", "Error: at 0x55aa00ff11cc"),
        ("Error: /tmp/tmpab12cd/x.py", "Error: /tmp/tmpzz99yy/x.py"),
        (
            "Error: /var/folders/x1/ab12/T/tmp1/x.py",
            "Error: /private/var/folders/q9/zz/T/tmp2/x.py",
        ),
        (
            r"Error: C:\Users\ann\AppData\Local\Temp\tmp1a\x.py",
            r"Error: C:\Users\bob\AppData\Local\Temp\tmp9z\x.py",
        ),
        (
            "FAILED /tmp/pytest-of-ann/pytest-12/test_x0/t.py::x",
            "FAILED /tmp/pytest-of-bob/pytest-3/test_x0/t.py::x",
        ),
        ("Error: worker pid 4242 died", "Error: worker pid 99 died"),
        (
            "Error: run 123e4567-e89b-12d3-a456-426614174000 failed",
            "Error: run 00000000-1111-2222-3333-444444444444 failed",
        ),
        ("Error: commit 3f2a9c1d7e8b4a60 bad", "Error: commit a1b2c3d4e5f60718 bad"),
        ("[gw3] FAILED t.py::x", "[gw0] FAILED t.py::x"),
        ("\x1b[31mFAILED\x1b[0m t.py::x", "FAILED   t.py::x"),
    ],
)
def test_normalization(a: str, b: str) -> None:
    """Timestamps, durations, addresses, temp paths, pids, ids, workers and colours are ignored."""
    assert failing_lines(a) == failing_lines(b) != ()
    assert failure_signature(a) == failure_signature(b)


def test_line_numbers_are_kept() -> None:
    """A failure on another line is another failure: edits moved or changed it."""
    assert failure_signature("a.py:3: error: boom") != failure_signature("a.py:9: error: boom")


def test_signature_falls_back_to_the_tail() -> None:
    """Without a failure line, the last 20 lines decide, normalized."""
    head = "\n".join(f"line {i}" for i in range(50))
    a = head + "\nsegfault after 1.5s\n"
    b = "other start\n" + "\n".join(f"line {i}" for i in range(30, 50)) + "\nsegfault after 9s\n"
    assert failing_lines(a) == ()
    assert failure_signature(a) != failure_signature(head + "\nsegfault\nmore\n")
    assert failure_signature(a) == failure_signature(
        "\n".join(f"line {i}" for i in range(31, 50)) + "\nsegfault after 2s"
    )
    assert failure_signature(b) == failure_signature(a)


def test_empty_output_has_a_signature() -> None:
    """Even an empty output (a crash, a timeout) gets a stable signature."""
    assert failure_signature("") == failure_signature("\n\n")


# ---------------------------------------------------------------------------------------------
# Globs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_a.py",
        "tests/core/helpers.py",
        "test_root.py",
        "pkg/sub/test_x.py",
        "pkg/x_test.py",
        "src/parse.test.ts",
        "web/App.test.tsx",
        "src/parse.spec.js",
        "src/__tests__/parse.ts",
        "cmd/parse/parse_test.go",
        "src/test/java/com/acme/ParseTest.java",
        "module/src/test/kotlin/ParseTest.kt",
    ],
)
def test_default_globs_find_test_files(path: str) -> None:
    """The default globs cover pytest, Jest/Vitest, Go and Maven layouts."""
    assert is_test_path(path, DEFAULT_TEST_GLOBS)


@pytest.mark.parametrize(
    "path",
    [
        "src/parse.py",
        "src/parse.ts",
        "cmd/parse/parse.go",
        "src/main/java/Parse.java",
        "testing.py",
    ],
)
def test_default_globs_skip_source_files(path: str) -> None:
    """Source files are not test files."""
    assert not is_test_path(path)


def test_glob_semantics() -> None:
    """``**/`` spans zero or more folders; ``*`` stays in one; braces choose."""
    assert matches_glob("a.py", "**/*.py")
    assert matches_glob("x/y/a.py", "**/*.py")
    assert not matches_glob("x/a.py", "*.py")
    assert matches_glob("a.ts", "*.{js,ts}")
    assert not matches_glob("a.go", "*.{js,ts}")


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------

_NO_BREAKS = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")),
    max_size=30,
)
_DURATION_FORMS = ("in {}s", "({} ms)", "took {}s", "({}s)", "{}ms", "after {} seconds")
_FAILURE_FILLERS = st.sampled_from(
    ["FAILED tests/test_a.py::test_x -", "E   assert 1 == 2", "--- FAIL: TestX", "error: boom", ""]
)
_NUMBER = st.one_of(
    st.integers(min_value=0, max_value=10**6).map(str),
    st.floats(min_value=0, max_value=10**4, allow_nan=False).map(lambda x: f"{x:.3f}"),
)


@settings(max_examples=200)
@given(st.text())
def test_parse_verify_commands_never_raises(text: str) -> None:
    """Any text gives a tuple of distinct non-empty commands."""
    commands = parse_verify_commands(text)
    assert len(set(commands)) == len(commands) and all(commands)


@settings(max_examples=200)
@given(st.text())
def test_failure_signature_never_raises(text: str) -> None:
    """Any output gives a 16-character signature."""
    assert len(failure_signature(text)) == 16


@settings(max_examples=200)
@given(
    st.lists(
        st.tuples(st.one_of(_FAILURE_FILLERS, _NO_BREAKS), st.sampled_from(_DURATION_FORMS)),
        min_size=1,
        max_size=8,
    ),
    st.data(),
)
def test_signature_ignores_duration_numbers(
    lines: list[tuple[str, str]], data: st.DataObject
) -> None:
    """Replacing every duration number leaves the signature unchanged."""

    def render() -> str:
        return "\n".join(f"{text} {form.format(data.draw(_NUMBER))}" for text, form in lines)

    assert failure_signature(render()) == failure_signature(render())


# ---------------------------------------------------------------------------------------------
# Found by the end-to-end goal test with the real Claude Code
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "/usr/bin/python3 -m pytest -q",
        ".venv/bin/python -m pytest -q",
        "/home/me/project/.venv/bin/pytest -q",
        "node_modules/.bin/vitest run",
    ],
)
def test_a_command_given_by_path_is_a_verify_command(command: str) -> None:
    """`/…/.venv/bin/python -m pytest -q` names a known program by its path: it is a command."""
    assert parse_verify_commands(f"Goal: `{command}` passes") == (command,)


def test_a_path_to_an_unknown_program_is_not_a_command() -> None:
    """A path alone is a file, not a check to run."""
    assert parse_verify_commands("Goal: keep `/etc/hosts` tidy") == ()


PYTEST_Q_FAILURE = """\
F                                                                        [100%]
=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(2, 2) == 4
E       assert 0 == 4
E        +  where 0 = add(2, 2)

test_calc.py:4: AssertionError
=========================== short test summary info ============================
FAILED test_calc.py::test_add - assert 0 == 4
1 failed in 0.03s
"""


def test_the_failure_headline_of_pytest_names_the_test_and_the_reason() -> None:
    """Not the count summary `1 failed`, which says nothing about what failed."""
    assert failure_headline(PYTEST_Q_FAILURE) == "FAILED test_calc.py::test_add - assert 0 == 4"


@pytest.mark.parametrize(
    ("output", "headline"),
    [
        (
            "src/a.py:3: error: Incompatible types  [assignment]\nFound 1 error in 1 file\n",
            "src/a.py:3: error: Incompatible types [assignment]",
        ),
        ("compiling\nsomething went badly\n", "something went badly"),
        ("", ""),
    ],
)
def test_the_failure_headline_falls_back_in_order(output: str, headline: str) -> None:
    """Another tool's error line; else the last line printed; else nothing."""
    assert failure_headline(output) == headline


# ---------------------------------------------------------------------------------------------
# verify_request: every condition the goal names (audit seed001-004 D8)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "commands", "kinds"),
    [
        ("npm test 全部通过 且 lint 干净", ("npm test",), ("lint",)),
        ("npm test passes and lint is clean", ("npm test",), ("lint",)),
        ("`pytest -q` passes and there are no type errors", ("pytest -q",), ("types",)),
        ("the build succeeds and lint is clean", (), ("lint", "build")),
        ("all tests pass and `ruff check .` is clean", ("ruff check .",), ("tests",)),
        ("`npm run check` green and all tests pass", ("npm run check",), ("tests",)),
    ],
)
def test_a_named_command_does_not_drop_the_other_conditions(
    text: str, commands: tuple[str, ...], kinds: tuple[str, ...]
) -> None:
    """A command written out and a condition said in prose are both kept: the prose condition
    becomes a kind the project's own command is inferred for."""
    asked = verify_request(text)
    assert (asked.commands, asked.kinds) == (commands, kinds)


@pytest.mark.parametrize(
    "text",
    [
        "npm test passes",
        "keep working until `make test` succeeds",
        "`pytest -q` passes: tests pass",
    ],
)
def test_a_command_is_not_asked_for_twice(text: str) -> None:
    """The words of a command ("npm test passes") and a condition the command already is do
    not add a second, inferred command."""
    assert verify_request(text).kinds == ()


@pytest.mark.parametrize(
    "text",
    [
        "the importer accepts both v1 and v2 manifests",
        "Goal: ship the CSV export",
        "把 CSV 导出做完",
    ],
)
def test_a_text_that_names_no_check_asks_for_none(text: str) -> None:
    """No command and no prose check: nothing is inferred, not even the test suite. The goal
    is recorded without a verify and the user is asked for one."""
    assert verify_request(text) == VerifyRequest((), ())


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("npm test", "tests"),
        ("make test", "tests"),
        ("python -m pytest -q", "tests"),
        ("cargo test", "tests"),
        ("npm run lint", "lint"),
        ("make lint", "lint"),
        ("cargo clippy", "lint"),
        ("mypy src", "types"),
        ("npm run typecheck", "types"),
        ("cargo build", "build"),
        ("pytest tests/lint_test.py", "tests"),
        ("npm run check", None),
        ("./ci.sh", None),
    ],
)
def test_command_kind(command: str, kind: str | None) -> None:
    """A command's kind is read from its words; a name that does not say covers nothing."""
    assert command_kind(command) == kind
