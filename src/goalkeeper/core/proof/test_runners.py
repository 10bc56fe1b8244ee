"""Which programs run tests: the test runners goalkeeper knows, behind their wrappers.

``pytest``, ``python -m unittest``, ``npm test``, ``cargo test``, ``make check``, a script named
for tests, … also behind ``env``, ``timeout``, ``uv run``, ``npx`` and friends, and not when
they only print their help, list tests or dry-run. ``could_verify`` answers the weaker question
for a command the agent's plan names: could it verify anything at all (``echo`` cannot). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from goalkeeper.core.shell.line import ASSIGNMENT, base, part_words
from goalkeeper.core.text.lazy_re import lazy_re

SHADOWING = frozenset({"PATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "NODE_OPTIONS", "BASH_ENV"})
"""Variables that change which program runs or what it does (``PATH=./fake:$PATH pytest``,
``PYTEST_ADDOPTS=--collect-only``): a command that sets one is not a verification."""


def program_words(words: list[str]) -> list[str] | None:
    """The words of the program a part runs: leading assignments and wrappers (``env``,
    ``timeout``, ``uv run``, ``npx`` …) removed; None when it sets a variable that changes
    which program runs or how."""
    i = 0
    while i < len(words):
        word = words[i]
        if ASSIGNMENT.match(word):
            if word.split("=", 1)[0] in SHADOWING:
                return None
            i += 1
            continue
        name = base(word)
        rest = words[i + 1 :]
        if name == "command" and any(a in ("-v", "-V") for a in rest[:2]):
            return None  # `command -v pytest` prints where pytest is
        if name in _WRAPPERS:
            i += 1 + _skip_options(rest, _WRAPPERS[name])
            if name == "timeout" and i < len(words):
                i += 1  # the duration
            continue
        pair = (name, rest[0]) if rest else None
        if pair is not None and pair in _RUNS:
            after = rest[1:]
            skip = _skip_options(after, _RUNS[pair])
            script = after[skip:]
            if script and _script_is_test(script[0]):
                return [f"{name}-script", *script]
            i += 2 + skip
            continue
        return words[i:] or None
    return None


def _skip_options(words: Sequence[str], valued: frozenset[str]) -> int:
    """How many leading words are options of a wrapper (``valued`` ones take the next word)."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        if words[i] == "--":
            return i + 1
        i += 2 if words[i] in valued else 1
        if i > len(words):
            return len(words)
    while i < len(words) and ASSIGNMENT.match(words[i]):
        if words[i].split("=", 1)[0] in SHADOWING:
            return len(words)
        i += 1
    return i


_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "timeout": frozenset({"-k", "--kill-after", "-s", "--signal"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xvfb-run": frozenset({"-n", "--server-num", "-s", "--server-args", "-f", "--auth-file"}),
    "unbuffer": frozenset(),
    "uvx": frozenset({"--from", "--with", "-p", "--python"}),
    "npx": frozenset({"-p", "--package"}),
    "bunx": frozenset({"-p", "--package"}),
    "pnpx": frozenset(),
}
"""Programs that run the command after their options (and assignments)."""
_RUN_VALUED = frozenset(
    {"--with", "--with-editable", "--with-requirements", "--extra", "--group", "--only-group"}
    | {"--package", "-p", "--python", "--directory", "--project", "--env-file", "--index"}
    | {"-n", "--name", "--prefix", "--cwd", "-e", "--environment", "-C", "-P", "--filter"}
)
_RUNS: dict[tuple[str, str], frozenset[str]] = {
    pair: _RUN_VALUED
    for pair in (
        ("uv", "run"),
        ("poetry", "run"),
        ("pipenv", "run"),
        ("pdm", "run"),
        ("rye", "run"),
        ("hatch", "run"),
        ("pixi", "run"),
        ("conda", "run"),
        ("mamba", "run"),
        ("micromamba", "run"),
        ("pipx", "run"),
        ("bundle", "exec"),
        ("pnpm", "exec"),
        ("pnpm", "dlx"),
        ("yarn", "exec"),
        ("yarn", "dlx"),
        ("npm", "exec"),
    )
}
"""Two-word runners of a command (or of a project script: ``pdm run test``)."""
_TEST_TARGETS = frozenset(
    {"test", "tests", "check", "checks", "unittest", "unit", "integration", "e2e", "spec"}
)
_NOOP = frozenset({"--help", "-h", "--version"})
"""Options with which a runner only prints (help, version) and tests nothing."""
_RUNNER_NOOP: dict[str, frozenset[str]] = {
    "pytest": frozenset({"--collect-only", "--co", "-V", "--fixtures", "--markers"})
    | frozenset({"--setup-plan", "--funcargs", "--trace-config"}),
    "tox": frozenset({"-l", "--listenvs", "-a", "--listenvs-all", "--showconfig", "-n"}),
    "nox": frozenset({"-l", "--list", "--list-sessions"}),
    "jest": frozenset({"--listTests", "--showConfig"}),
    "vitest": frozenset({"list"}),
    "cargo": frozenset({"--no-run", "--list"}),
    "go": frozenset({"-list", "-c"}),
    "make": frozenset({"-n", "--dry-run", "--just-print", "--recon", "-q", "--question"}),
}
_PYTHON = lazy_re(r"^(?:python(?:\d+(?:\.\d+)*)?|pypy3?|py)(?:\.exe)?$")
_PY_MODULES = {"pytest": "pytest", "py.test": "pytest", "unittest": "-", "tox": "tox"}
_PY_MODULES.update({"nox": "nox", "green": "-", "nose2": "-", "trial": "-", "behave": "-"})
_DIRECT = {"pytest": "pytest", "py.test": "pytest", "tox": "tox", "nox": "nox", "jest": "jest"}
_DIRECT.update({"vitest": "vitest", "mocha": "-", "ava": "-", "tap": "-", "karma": "-"})
_DIRECT.update({"ctest": "-", "rspec": "-", "phpunit": "-", "pest": "-", "prove": "-"})
_DIRECT.update({"bats": "-", "busted": "-", "nose2": "-", "ward": "-", "behave": "-"})
_DIRECT.update({"cucumber": "-", "cucumber-js": "-", "nextest": "-", "codecept": "-"})
_SUBCOMMAND = {  # program → the subcommands that run tests
    "cargo": frozenset({"test", "nextest"}),
    "go": frozenset({"test"}),
    "deno": frozenset({"test"}),
    "bun": frozenset({"test"}),
    "dotnet": frozenset({"test"}),
    "swift": frozenset({"test"}),
    "mix": frozenset({"test"}),
    "stack": frozenset({"test"}),
    "cabal": frozenset({"test"}),
    "dart": frozenset({"test"}),
    "flutter": frozenset({"test"}),
    "sbt": frozenset({"test", "testOnly", "testQuick"}),
    "lein": frozenset({"test"}),
    "bazel": frozenset({"test"}),
    "bazelisk": frozenset({"test"}),
    "meson": frozenset({"test"}),
    "hatch": frozenset({"test"}),
    "rake": frozenset({"test", "spec"}),
    "playwright": frozenset({"test"}),
    "cypress": frozenset({"run"}),
    "zig": frozenset({"test"}),
    "mvn": frozenset({"test", "verify", "integration-test"}),
    "mvnw": frozenset({"test", "verify", "integration-test"}),
    "gradle": frozenset({"test", "check", "build"}),
    "gradlew": frozenset({"test", "check", "build"}),
}
_SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn"})
_MAKES = frozenset({"make", "gmake", "just", "task", "mage"})
_MAKE_VALUED = frozenset({"-C", "--directory", "-f", "--file", "--makefile", "-j", "--jobs"})
_MAKE_VALUED |= frozenset({"-I", "--include-dir", "-o", "-W", "-l", "--justfile", "-d"})


def is_test_run(words: list[str]) -> bool:
    """Whether a program's words run tests (and not only its help or a dry run)."""
    name = base(words[0])
    args = words[1:]
    if name.endswith("-script"):  # a project script chosen by its name: `pdm run test`
        return not _runner_noop(args, "")
    if _PYTHON.match(name):
        return _python_runs_tests(args)
    if name == "node":
        return "--test" in args[: _first_operand(args)] and not _runner_noop(args, "")
    if name in _DIRECT:
        return not _runner_noop(args, _DIRECT[name])
    if name in _SCRIPT_RUNNERS:
        return _script_runs_tests(args)
    if name in _MAKES:
        targets = [a for a in _operands(args, _MAKE_VALUED) if not ASSIGNMENT.match(a)]
        return any(_script_is_test(t) for t in targets) and not _runner_noop(args, "make")
    subcommands = _SUBCOMMAND.get(name.removesuffix(".bat"))
    if subcommands is None:
        return "/" in words[0] and _is_test_script(words[0]) and not _runner_noop(args, "")
    operands = _operands(args, frozenset({"-C", "--manifest-path", "-p", "--package"}))
    if not operands or operands[0] not in subcommands:
        return False
    if name == "cargo" and operands[0] == "nextest":
        return operands[1:2] == ["run"] and not _runner_noop(args, "cargo")
    return not _runner_noop(args, name)


_PYTEST_SELECTING = frozenset(
    {"-k", "-m", "--deselect", "--lf", "--last-failed", "--sw", "--stepwise", "--ignore"}
    | {"--ignore-glob", "-o", "--override-ini", "--pyargs"}
)
"""pytest options that run some of the tests only (or change which)."""
_SELECTING = frozenset(
    {"-t", "--testNamePattern", "--testPathPattern", "-run", "--grep", "-g", "--exact"}
    | {"--skip", "--onlyChanged", "--changedSince", "--only", "-k", "--filter"}
)
"""The same for the other runners (jest, vitest, mocha, go, cargo's test harness, deno)."""


def narrows_selection(words: Sequence[str]) -> bool:
    """Whether a test run (``program_words`` of it) runs a selection of the tests rather than
    the suite: a name filter (``-k``, ``-m``, ``-run`` …), a test id (``test_x.py::test_a``)
    or a test file named on the command line. A directory (``tests/``) is the suite of that
    folder and does not narrow. The check gate asks for the suite: a check that ran a test
    file the agent just wrote, or ``-k`` for the one test that passes, proves nothing about
    the others."""
    if not words:
        return False
    args = list(words[1:])
    name = base(words[0])
    selecting = _SELECTING
    if _PYTHON.match(name) and args[:1] == ["-m"] and len(args) > 1:
        args, selecting = args[2:], _PYTEST_SELECTING
    elif _PYTHON.match(name):
        return False  # a test script run as a program is its own suite
    elif _DIRECT.get(name) == "pytest":
        selecting = _PYTEST_SELECTING
    for arg in args:
        if arg == "--" and selecting is _PYTEST_SELECTING:
            break
        option = arg.split("=", 1)[0]
        if option in selecting or (option.startswith("-k") and len(option) > 2):
            return True
        if arg.startswith("-"):
            continue
        if "::" in arg or re.search(r"\.(?:py|[cm]?[jt]sx?|rs|go)$", arg):
            return True
    return False


def _python_runs_tests(args: list[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-m":
        if args[i] in ("-c", "-"):
            return False  # an inline program, not a runner
        i += 2 if args[i] in ("-X", "-W") else 1
    rest = args[i:]
    if rest[:1] == ["-m"] and len(rest) > 1:
        module = rest[1]
        kind = _PY_MODULES.get(module)
        return kind is not None and not _runner_noop(rest[2:], kind)
    if len(rest) >= 2 and base(rest[0]) in ("manage.py", "setup.py") and rest[1] == "test":
        return True
    return bool(rest) and _is_test_script(rest[0])


def _is_test_script(path: str) -> bool:
    """A script named for tests: ``test_api.py``, ``api_test.py``, ``run_tests.sh``,
    ``scripts/test``, ``./check.sh``."""
    stem = base(path).split(".", 1)[0].lower()
    return (
        stem.startswith("test")
        or stem.endswith(("_test", "_tests"))
        or stem in ("run_tests", "run-tests", "runtests", "check", "checks")
    )


def _script_runs_tests(args: list[str]) -> bool:
    """``npm test``, ``npm t``, ``npm run test:unit``, ``pnpm test``, ``yarn test``."""
    operands = _operands(args, frozenset({"--prefix", "-C", "--dir", "--filter", "-w"}))
    if not operands:
        return False
    head = operands[0]
    if head in ("test", "t", "tst", "run-tests"):
        return not _runner_noop(args, "")
    if head in ("run", "run-script") and len(operands) > 1:
        return _script_is_test(operands[1]) and not _runner_noop(args, "")
    return _script_is_test(head) and head not in ("install", "add") and not _runner_noop(args, "")


def _script_is_test(name: str) -> bool:
    """A script or make target named for tests: ``test``, ``test:unit``, ``check``, ``e2e``."""
    base = name.split(":", 1)[-1] if ":" in name and not name.startswith("test") else name
    head = re.split(r"[:._-]", base, maxsplit=1)[0].lower()
    return head in _TEST_TARGETS or base.lower().startswith("test")


def only_prints_info(program: Sequence[str]) -> bool:
    """Whether a program's options make it only print (help, version, a test list): a declared
    command run that way verifies nothing."""
    name = base(program[0])
    return _runner_noop(program[1:], _DIRECT.get(name, name))


def _runner_noop(args: Sequence[str], runner: str) -> bool:
    extra = _RUNNER_NOOP.get(runner, frozenset())
    for arg in args:
        if arg == "--":
            break
        if arg in _NOOP or arg in extra or arg.split("=", 1)[0] in extra:
            return True
    return False


def _operands(args: Sequence[str], valued: frozenset[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in valued
        else:
            out.append(arg)
    return out


def _first_operand(args: Sequence[str]) -> int:
    return next((i for i, a in enumerate(args) if not a.startswith("-")), len(args))


def inline_script(args: list[str]) -> str | None:
    """The script of ``sh -c 'script'`` (``-c`` may be combined: ``-lc``, ``-ec``)."""
    for i, arg in enumerate(args):
        if not arg.startswith("-"):
            return None
        if "c" in arg[1:] and not arg.startswith("--") and i + 1 < len(args):
            return args[i + 1]
    return None


def is_declared(words: Sequence[str], declared: Sequence[str]) -> bool:
    for entry in declared:
        prefix = part_words(entry)
        if prefix and list(words[: len(prefix)]) == prefix:
            return True
    return False


_ONLY_PRINTS = frozenset(
    {"echo", "printf", "cat", "true", "false", ":", "test", "[", "[[", "ls", "grep", "egrep"}
    | {"fgrep", "rg", "ag", "head", "tail", "sed", "awk", "wc", "sort", "uniq", "tee", "touch"}
    | {"cp", "mv", "rm", "mkdir", "sleep", "exit", "yes", "date", "pwd", "cd", "env", "export"}
    | {"set", "read", "which", "type", "whoami", "hostname", "uname", "find", "stat", "file"}
    | {"tac", "rev", "cut", "tr", "less", "more", "xxd", "od", "base64", "jq", "column"}
)
"""Programs that print or read (or do nothing): a plan naming one names no verification."""
_INLINE = frozenset({"-c", "-e", "--eval", "-p", "--print", "-E"})


def could_verify(words: list[str]) -> bool:
    """Whether a command the agent's plan names could verify anything (see declared_commands)."""
    program = program_words(words)
    if program is None:
        return False
    name = base(program[0])
    if name in _ONLY_PRINTS:
        return False
    interpreters = ("sh", "bash", "zsh", "dash", "node", "perl", "ruby", "deno", "bun")
    if _PYTHON.match(name) or name in interpreters:
        return not any(a in _INLINE or (a.startswith("-") and a.endswith("c")) for a in program)
    return True


def defines_function(word: str) -> bool:
    return word in ("alias", "function", "{", "}") or word.endswith("()")
