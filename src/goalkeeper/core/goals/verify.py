"""Verification inputs and outputs (seed 004 §4): the commands a goal names, the checks a prose
goal asks for, the signature of a failed run, and fingerprints that show test tampering.

* ``parse_verify_commands`` finds explicit commands (§4.5 step 1): text in backticks or a fenced
  block that looks like a command, and known command shapes in prose, cut where the prose
  resumes ("npm run check 通过" → ``npm run check``).
* ``prose_verify_kinds`` says what a goal asks for in prose (tests, types, lint, build), so the
  project layer can infer the project's own commands (§4.5 step 2); ``verify_request`` puts both
  together and keeps every condition the text names, with no default when it names none.
* ``failure_signature`` hashes the normalized failing lines of a run, so that "the same failure
  again" (§4.6: blocks without consuming a round) is recognised across timings, temp paths and
  addresses, and a different failing test is not.
* ``fingerprint_test_file`` and ``compare_fingerprints`` count tests, assertions and skips per
  test file, so that a repair that deletes or weakens tests is caught (notes §11: protect tests).

Pure; no I/O; never raises on any text. Counting is lexical and per language, not a parser:
full-line comments and string contents are ignored, other tricks are not chased.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Literal

from msgspec import Struct

from goalkeeper.core.text.lazy_re import LazyPattern, lazy_re
from goalkeeper.core.text.mdcode import blank_spans, closes_fence, inline_code_spans, opens_fence
from goalkeeper.core.values import GoalCondition

VerifyKind = Literal["tests", "types", "lint", "build"]
VERIFY_KINDS: tuple[VerifyKind, ...] = ("tests", "types", "lint", "build")
TamperKind = Literal["deleted", "fewer_tests", "fewer_asserts", "more_skips"]


def _words(text: str) -> frozenset[str]:
    """A word list written as prose: easier to read and extend than a column of strings."""
    return frozenset(text.split())


SIGNATURE_CHARS = 16
"""64 bits of sha256: collisions between two failures of one goal are not a practical concern."""
FALLBACK_LINES = 20
"""When no line looks like a failure, the signature is taken over the output's last 20 lines,
where runners print their verdict."""

# ---------------------------------------------------------------------------------------------
# Verify commands
# ---------------------------------------------------------------------------------------------

# Programs that are a check on their own, and programs that need a subcommand to be one.
_SOLO = _words(
    "pytest mypy make tsc tox nox jest vitest eslint pyright flake8 pylint mocha ctest rspec "
    "phpunit"
)
_WITH_ARGS = _words(
    "npm pnpm yarn npx bun bunx deno node python python3 py uv uvx poetry hatch pdm pipenv ruff "
    "black prettier cargo go gradle gradlew ./gradlew mvn mvnw ./mvnw dotnet swift bazel cmake "
    "just bash sh rake bundle composer mix sbt lein stack cabal zig coverage"
)
_ENV_ASSIGN = lazy_re(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
_PROMPT = lazy_re(r"^\s*(?:\$|>|%|PS>)\s+")

_NAME = r"[A-Za-z0-9][\w:.@/+-]*"
_HEAD = lazy_re(
    r"(?<![\w./-])(?:"
    r"(?P<pym>python3?\s+-m\s+(?:pytest|mypy))"
    r"|(?P<uv>uv\s+run\s+(?P<uv_arg>" + _NAME + r"))"
    r"|(?P<npx>npx\s+(?P<npx_arg>" + _NAME + r"))"
    r"|(?P<run>(?:npm|pnpm|yarn|bun)\s+run\s+(?P<run_arg>" + _NAME + r"))"
    r"|(?P<jstest>(?:npm|pnpm|yarn|bun)\s+test)"
    r"|(?P<pm>(?:pnpm|yarn)\s+(?P<pm_arg>" + _NAME + r"))"
    r"|(?P<ruff>ruff\s+(?:check|format\s+--check))"
    r"|(?P<make>make\s+(?P<make_arg>" + _NAME + r"))"
    r"|(?P<cargo>cargo\s+(?:test|build|clippy|check))"
    r"|(?P<go>go\s+(?:test|vet|build))"
    r"|(?P<gradle>(?:\./)?gradlew?\s+(?:test|check|build))"
    r"|(?P<mvn>(?:\./)?mvnw?\s+(?:-[\w.=-]+\s+)*(?:test|verify|package))"
    r"|(?P<solo>pytest|mypy|tsc)"
    r")(?![\w/-]|\.\w)",  # "mypy.ini" is a file
    re.ASCII,
)
_ARG = lazy_re(r"[ \t]+(\S+)")
_ARG_CUT = lazy_re(r"[,，;；。、()（）\"'`“”‘’<>|&]|[^\x00-\x7f]")
_PLAIN = lazy_re(r"[A-Za-z]+")
_TARGET_LIKE = lazy_re(r"[-_:.]")
# Plain words that are usually a folder argument ("mypy src", "pytest tests"), not prose.
_FOLDER_WORDS = _words("src tests test lib app pkg packages cmd internal")
_MAKE_TARGETS = _words(
    "test tests check lint build all ci verify typecheck types e2e unit integration coverage "
    "spec specs validate qa"
)
# Words after which the prose resumes: the command has ended.
_STOPWORDS = _words(
    "and or passes pass passing passed is are be was were clean green succeeds succeed works "
    "work should must shall will would can could on in at of the a an to for with without then "
    "until after before also too as so if when while but its it all every no not fails fail "
    "failing runs run returns exits cleanly successfully reports report shows has gives "
    "with 且 并且 然后"
)


class _Code(Struct, frozen=True):
    start: int
    content: str


def parse_verify_commands(text: str) -> tuple[str, ...]:
    """Seed 004 §4.5 step 1: the explicit verify commands in a goal, in order, de-duplicated.

    Backticks and fenced lines count when they look like a command (a known program with, where
    it needs one, a subcommand). In prose only known shapes count (``npm run <script>``,
    ``pytest …``, ``cargo test``, ``go test ./...`` …), cut at the first word where prose resumes
    (" and ", "passes", "通过", a comma). "make sure" is not ``make``: a make target must be a
    usual one or look like a name. Never raises."""
    return _commands(text)[0]


def _commands(text: str) -> tuple[tuple[str, ...], str]:
    """The explicit commands, and the prose that remains once code and the prose commands are
    blanked (what the conditions *not* written as a command are read from)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    found: list[tuple[int, str]] = []
    codes, prose = _split_code(text)
    for code in codes:
        command = _code_command(code.content)
        if command:
            found.append((code.start, command))
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        m = _HEAD.search(prose, pos)
        if m is None:
            break
        command, pos = _prose_command(prose, m)
        if command:
            found.append((m.start(), command))
            spans.append((m.start(), pos))
    seen: set[str] = set()
    out: list[str] = []
    for _, command in sorted(found, key=lambda item: item[0]):
        if command not in seen:
            seen.add(command)
            out.append(command)
    return tuple(out), blank_spans(prose, spans)


class VerifyRequest(Struct, frozen=True):
    """Every condition a goal's text names: the commands it writes out, and the conditions it
    names in prose that none of those commands already is ("`npm test` passes and coverage is at
    least 80%" → ``npm test`` and a coverage condition of 80). Both empty when the text names no
    check at all: the user is then asked for one, never handed a guess."""

    commands: tuple[str, ...]
    conditions: tuple[GoalCondition, ...] = ()

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(c.kind for c in self.conditions)


def verify_request(text: str) -> VerifyRequest:
    """Seed 004 §4.5 steps 1 and 2 together, for the goal's text: the explicit commands, plus
    each prose condition (tests, types, lint, build, coverage; ``core.goals.conditions``) that
    no explicit command covers. The prose is read with the commands blanked, so "npm test
    passes" asks for ``npm test`` only. There is no default kind: a text that names no check
    asks for none. Never raises."""
    from goalkeeper.core.goals.conditions import named_conditions

    commands, prose = _commands(text)
    return VerifyRequest(commands, named_conditions(prose, commands))


_KIND_OF_TOOL: tuple[tuple[VerifyKind, LazyPattern], ...] = (
    (
        "types",
        lazy_re(r"(?<![\w-])(?:mypy|pyright|tsc|typecheck|type-check|types|check-types)(?![\w-])"),
    ),
    (
        "lint",
        lazy_re(
            r"(?<![\w-])(?:ruff|eslint|flake8|pylint|lint|clippy|vet|golangci-lint|"
            r"prettier|black|stylelint)(?![\w-])"
        ),
    ),
    (
        "tests",
        lazy_re(
            r"(?<![\w-])(?:pytest|jest|vitest|mocha|tox|nox|ctest|rspec|phpunit|unittest|"
            r"tests?|spec|specs|e2e|unit|integration)(?![\w-])"
        ),
    ),
    ("build", lazy_re(r"(?<![\w-])(?:build|compile|package|all)(?![\w-])")),
)


def command_kind(command: str) -> VerifyKind | None:
    """The kind of check a command is by its words (``npm run lint`` → lint, ``make test`` →
    tests, ``cargo build`` → build), or None when its name does not say (``npm run check``,
    ``./ci.sh``): such a command covers no prose condition, which is then kept as well."""
    lowered = command.lower()
    for kind, pattern in _KIND_OF_TOOL:
        if pattern.search(lowered):
            return kind
    return None


def _split_code(text: str) -> tuple[list[_Code], str]:
    """Code spans and fenced lines with their offsets, and the text with them blanked."""
    codes: list[_Code] = []
    lines: list[str] = []
    fence: tuple[str, int] | None = None
    offset = 0
    for line in text.split("\n"):
        if fence is not None:
            if closes_fence(line, fence):
                fence = None
            elif line.strip():
                codes.append(_Code(offset, line))
            lines.append(" " * len(line))
        elif (opened := opens_fence(line)) is not None:
            fence = opened
            lines.append(" " * len(line))
        elif spans := inline_code_spans(line):
            for start, end in spans:
                run = len(line[start:end]) - len(line[start:end].lstrip("`"))
                codes.append(_Code(offset + start, line[start + run : end - run]))
            lines.append(blank_spans(line, spans))
        else:
            lines.append(line)
        offset += len(line) + 1
    return codes, "\n".join(lines)


def _code_command(content: str) -> str | None:
    """The code span as a command when it looks like one, else None."""
    if "\n" in content or len(content) > 300:
        return None
    tokens = _PROMPT.sub("", content).split()
    while tokens and _ENV_ASSIGN.fullmatch(tokens[0]) and len(tokens) > 1:
        tokens = tokens[1:]
    if not tokens:
        return None
    first = tokens[0]
    program = first.rsplit("/", 1)[-1] if "/" in first else first  # /usr/bin/python3, .venv/…
    if program in _SOLO or (program in _WITH_ARGS and len(tokens) >= 2):
        return " ".join(_PROMPT.sub("", content).split())
    if first.startswith(("./", "bin/", "scripts/")) and len(first) > 2:
        return " ".join(_PROMPT.sub("", content).split())
    return None


def _prose_command(prose: str, m: re.Match[str]) -> tuple[str | None, int]:
    """The command a shape match starts, with its arguments up to the prose boundary, and the
    position to continue from."""
    kind = m.lastgroup or ""  # the outer group: it closes after its positional one
    positional = m.groupdict().get(f"{kind}_arg")
    if positional is not None and (positional.lower() in _STOPWORDS or positional == "run"):
        return None, m.start() + 1
    if kind == "make":
        following = _ARG.match(prose, m.end())
        word_follows = following is not None and (
            _PLAIN.fullmatch(following.group(1)) is not None
            and following.group(1).lower() not in _STOPWORDS
        )
        if word_follows or not (
            positional in _MAKE_TARGETS or _TARGET_LIKE.search(positional or "")
        ):
            return None, m.start() + 1  # "make sure …", "make all tests pass"
    args, end = _args(prose, m.end())
    if kind == "go" and not (
        (args and args[0].startswith(("./", "-", "/"))) or "/" in "".join(args)
    ):
        return None, m.end()
    if kind == "solo" and m.group("solo") == "tsc" and not (args and args[0].startswith("-")):
        return None, m.end()
    head = " ".join(m.group(0).split())
    return " ".join([head, *args]), end


def _args(prose: str, pos: int) -> tuple[list[str], int]:
    """Arguments after a command head on the same line, up to where prose resumes; trailing
    plain words that are neither a flag's value nor a usual folder name are dropped ("cargo test
    parser" → ``cargo test``, but ``mypy src``)."""
    args: list[str] = []
    end = pos
    while True:
        m = _ARG.match(prose, end)
        if m is None:
            break
        token, stop = m.group(1), False
        cut = _ARG_CUT.search(token)
        if cut:
            token, stop = token[: cut.start()], True
        if token.endswith(".") and len(token) > 1 and not token.endswith(".."):
            token, stop = token[:-1], True
        if not token or token.lower() in _STOPWORDS:
            break
        args.append(token)
        end = m.start(1) + len(token)
        if stop:
            break
    while args and _PLAIN.fullmatch(args[-1]) and args[-1] not in _FOLDER_WORDS:
        if len(args) >= 2 and args[-2].startswith("-") and "=" not in args[-2]:
            break
        args.pop()
    return args, end


# ---------------------------------------------------------------------------------------------
# Prose verify kinds
# ---------------------------------------------------------------------------------------------

_PASS_EN = r"(?:pass|passes|passing|passed|succeed|succeeds|are\s+green|is\s+green|green)"
_KIND_PATTERNS: tuple[tuple[VerifyKind, LazyPattern], ...] = (
    (
        "tests",
        lazy_re(
            r"(?<![A-Za-z])(?:(?:unit|integration|e2e|end-to-end)\s+)?tests?\s+"
            r"(?:all\s+|now\s+)?(?:are\s+|is\s+)?" + _PASS_EN + r"(?![A-Za-z])"
            r"|(?<![A-Za-z])(?:test\s+)?suite\s+(?:is\s+|stays\s+)?(?:green|passes|passing)"
            r"|(?<![A-Za-z])no\s+(?:failing|failed|broken)\s+tests(?![A-Za-z])"
            r"|(?<![A-Za-z])green\s+(?:tests|test\s+suite|suite)(?![A-Za-z])"
            r"|(?<![A-Za-z])CI\s*(?:is\s+|stays\s+)?(?:green|passes|passing|全绿|通过|变绿)"
            r"|(?<![A-Za-z])tests?\s*(?:全部|都|均)?(?:通过|全绿)"
            r"|(?:测试|用例|单测)[^。！？\n]{0,6}?(?:通过|全绿|变绿|绿了)",
            re.IGNORECASE,
        ),
    ),
    (
        "types",
        lazy_re(
            r"(?<![A-Za-z])(?:mypy|pyright|tsc)\s+(?:is\s+|runs\s+)?(?:clean|passes|green|happy)"
            r"|(?<![A-Za-z])type[- ]?check(?:s|ed|ing|er)?(?![A-Za-z])"
            r"|(?<![A-Za-z])no\s+type\s+errors(?![A-Za-z])"
            r"|(?<![A-Za-z])types?\s+(?:are\s+|is\s+)?clean(?![A-Za-z])"
            r"|(?<![A-Za-z])well-typed(?![A-Za-z])"
            r"|类型检查|类型错误|类型[^。！？\n]{0,4}(?:无错误|通过|干净)",
            re.IGNORECASE,
        ),
    ),
    (
        "lint",
        lazy_re(
            r"(?<![A-Za-z])(?:lint|linter|linting|ruff|eslint|flake8|pylint)\s*(?:is\s+|are\s+)?"
            r"(?:clean|passes|pass|green|happy|干净|通过|无错误|无警告|无告警)"
            r"|(?<![A-Za-z])no\s+lint(?:er)?\s+(?:errors|warnings|issues)(?![A-Za-z])"
            r"|(?<![A-Za-z])lint[- ]free(?![A-Za-z])"
            r"|代码检查[^。！？\n]{0,4}(?:通过|干净)|静态检查[^。！？\n]{0,4}(?:通过|干净)",
            re.IGNORECASE,
        ),
    ),
    (
        "build",
        lazy_re(
            r"(?<![A-Za-z])(?:it|the\s+project|the\s+code|everything|the\s+app|the\s+package|"
            r"the\s+crate|the\s+binary)\s+(?:still\s+|now\s+)?(?:builds|compiles)(?![A-Za-z])"
            r"|(?<![A-Za-z])(?:build|builds|compiles?)\s+(?:cleanly|successfully|without\s+errors|"
            r"passes|succeeds|is\s+green|is\s+clean|green)(?![A-Za-z])"
            r"|(?<![A-Za-z])(?:a\s+)?(?:clean|green|successful)\s+build(?![A-Za-z])"
            r"|(?:构建|编译|打包)[^。！？\n]{0,4}?(?:通过|成功|无错误|没有错误|不报错)",
            re.IGNORECASE,
        ),
    ),
)


def prose_verify_kinds(text: str) -> tuple[VerifyKind, ...]:
    """Seed 004 §4.5 step 2: the kinds of check a prose goal asks for ("all tests pass" →
    tests, "类型检查通过" → types, "lint 干净" → lint, "构建无错误" → build), in the fixed
    order tests, types, lint, build. Never raises."""
    return tuple(kind for kind, _ in prose_verify_spans(text))


def prose_verify_spans(text: str) -> tuple[tuple[VerifyKind, str], ...]:
    """``prose_verify_kinds`` with the words that asked for each kind (the first match), for
    ``core.goals.conditions`` to keep what the user said of it."""
    out: list[tuple[VerifyKind, str]] = []
    for kind, pattern in _KIND_PATTERNS:
        m = pattern.search(text)
        if m is not None:
            out.append((kind, m.group(0)))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Failure signatures
# ---------------------------------------------------------------------------------------------

_ANSI = lazy_re(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_FAILING = lazy_re(
    r"^\s*(?:FAILED|ERROR)\b"  # pytest short summary, collection errors
    r"|^E\s{2,}\S"  # pytest assertion detail
    r"|^=+\s.*\b(?:failed|errors?)\b"  # pytest final summary
    r"|(?i:\berror\b(?:\[E\d+\])?:)"  # mypy, rustc, gcc, generic "Error:"
    r"|\berror\s+TS\d+"  # tsc
    r"|\berror\[E\d+\]"  # cargo
    r"|[✗✕✖]|^\s*×\s"  # jest, vitest, mocha-style crosses
    r"|\bFAIL(?:ED)?\b"  # jest FAIL, go --- FAIL, cargo test result: FAILED
    r"|\b[A-Z]\w*(?:Error|Exception)\b:|\bAssertionError\b"
    r"|:\d+:\d+:\s+[A-Z]{1,4}\d{2,4}\b"  # ruff and flake8 "path:1:2: F401"
    r"|^\s*[A-Z]{1,4}\d{3,4}\s"  # ruff's newer "F401 [*] …" form
    r"|^\s*\d+:\d+\s+error\s"  # eslint
    r"|\bpanicked\s+at\b"  # rust
    r"|npm\s+ERR!"
    r"|^\s*\d+\s+(?:failing|failed)\b"  # mocha "2 failing"
)
_SHORT_SUMMARY = lazy_re(r"^(?:FAILED|ERROR)\s+\S")
_SUMMARY = lazy_re(
    r"^\s*(?:=+\s|Tests?:|Test\s+Suites:|test\s+result:|\d+\s+(?:failed|passed|errors?)\b)",
    re.IGNORECASE,
)
_SUMMARY_COUNT = lazy_re(r"\b\d+\s+(?:failed|failing|errors?)\b", re.IGNORECASE)
_SUMMARY_LABEL = lazy_re(r"^\s*([A-Za-z][A-Za-z ]*:)")

# A temp root, then pytest's numbered ``pytest-of-<user>/pytest-<n>/<test>`` folders or one
# randomly named folder: everything that differs between two runs of the same test.
_TMP = lazy_re(
    r"(?<![\w.-])(?:(?:/private)?/var/folders/[^/\s]+/[^/\s]+/[A-Z]|(?:/private)?(?:/var)?/tmp"
    r"|(?i:[A-Z]:[\\/]+Users[\\/]+[^\\/\s]+[\\/]+AppData[\\/]+Local[\\/]+Temp))"
    r"(?:[\\/]+pytest-of-[^\\/\s]+[\\/]+pytest-(?:\d+|current)(?:[\\/]+[^\\/\s:'\"]+)?"
    r"|[\\/]+[^\\/\s:'\"]+)?"
)
_TIMESTAMP = lazy_re(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)
_CLOCK = lazy_re(r"(?<![\w:.])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?![\d:])")
_SPAN = (
    r"(?<![\w.])(?:\d+(?:h|m|min)\s*)*\d+(?:[.,]\d+)?\s*"
    r"(?:ms|µs|μs|us|ns|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?)(?![A-Za-z0-9_])"
)
# A duration in brackets goes with its brackets ("(123 ms)", "[0.5s]"), so "Plan()" keeps its own.
_DURATION = lazy_re(
    rf"[(\[]\s*(?:took\s+|in\s+)?{_SPAN}\s*[)\]]"
    rf"|(?:(?<![\w.])(?:in|took|after|elapsed|duration)[\s:=]+)?{_SPAN}",
    re.IGNORECASE,
)
_ADDRESS = lazy_re(r"0x[0-9a-fA-F]{4,}")
_UUID = lazy_re(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_HEX_ID = lazy_re(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b")
_PID = lazy_re(r"\b(?:pid|process)\s*[=:#]?\s*\d+", re.IGNORECASE)
_WORKER = lazy_re(r"\[gw\d+\]")


def _normalize(line: str) -> str:
    """One output line without what changes between two runs of the same failure: colours,
    temp paths, timestamps, durations, addresses, uuids and long hex ids, pids, xdist workers;
    whitespace collapsed."""
    line = _ANSI.sub("", line)
    line = _TMP.sub("<tmp>", line)
    line = _TIMESTAMP.sub("<time>", line)
    line = _CLOCK.sub("<time>", line)
    line = _DURATION.sub("", line)
    line = _ADDRESS.sub("0x?", line)
    line = _UUID.sub("<id>", line)
    line = _HEX_ID.sub("<id>", line)
    line = _PID.sub("pid <n>", line)
    line = _WORKER.sub("", line)
    return " ".join(line.split())


def _summary(line: str) -> str:
    """A run summary keeps only its failure counts: a test added or passing elsewhere is not a
    different failure."""
    counts = _SUMMARY_COUNT.findall(line)
    label = _SUMMARY_LABEL.match(line)
    prefix = " ".join(label.group(1).split()) + " " if label else "summary: "
    return prefix + ", ".join(" ".join(c.split()) for c in counts) if counts else ""


def failing_lines(output: str) -> tuple[str, ...]:
    """The lines of a run's output that carry its failure, normalized, de-duplicated and
    sorted (pytest ``FAILED``/``E`` lines and summary, ``error:``, ``error TS…``, ruff codes,
    ``--- FAIL``, crosses, exceptions …). Empty when none looks like a failure. Never raises."""
    found: set[str] = set()
    for raw in output.splitlines():
        line = _ANSI.sub("", raw)
        if not _FAILING.search(line):
            continue
        if _SUMMARY.match(line) and _SUMMARY_COUNT.search(line):
            line = _summary(line)
        normalized = _normalize(line)
        if normalized:
            found.add(normalized)
    return tuple(sorted(found))


def failure_headline(output: str) -> str:
    """The one line that best says what failed, for a progress note or a log entry: a pytest
    ``FAILED``/``ERROR`` line (it names the test and the reason), else the first other failing
    line in the order printed, else a count summary (``1 failed``), else the last non-blank
    line. Whitespace is collapsed; at most 200 characters. Never raises."""
    best: tuple[int, str] | None = None
    for raw in output.splitlines():
        line = " ".join(_ANSI.sub("", raw).split())
        if not line or not _FAILING.search(line):
            continue
        rank = 0 if _SHORT_SUMMARY.match(line) else 2 if _SUMMARY.match(line) else 1
        if best is None or rank < best[0]:
            best = (rank, line)
            if rank == 0:
                break
    if best is not None:
        return best[1][:200]
    tail = [line.strip() for line in output.strip().splitlines() if line.strip()]
    return " ".join(_ANSI.sub("", tail[-1]).split())[:200] if tail else ""


def failure_signature(output: str) -> str:
    """Seed 004 §4.6: a short stable hash of the failing lines, or of the normalized last
    ``FALLBACK_LINES`` non-blank lines when none looks like a failure. The same failure with
    other timings, temp paths or addresses has the same signature. Never raises."""
    import hashlib

    lines: Sequence[str] = failing_lines(output)
    if not lines:
        tail = [raw for raw in output.splitlines() if raw.strip()][-FALLBACK_LINES:]
        lines = [n for n in (_normalize(raw) for raw in tail) if n]
        lines = ["tail:", *lines]
    digest = hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:SIGNATURE_CHARS]


# ---------------------------------------------------------------------------------------------
# Test files
# ---------------------------------------------------------------------------------------------

DEFAULT_TEST_GLOBS: tuple[str, ...] = (
    "tests/**/*.py",
    "test/**/*.py",
    "test_*.py",
    "**/test_*.py",
    "**/*_test.py",
    "**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "**/*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "**/__tests__/**/*.{js,jsx,ts,tsx,mjs,cjs}",
    "**/*_test.go",
    "**/src/test/**/*.{java,kt}",
    "**/*Test.java",
    "**/*Tests.java",
)
"""Where test files live by the conventions of pytest, Jest/Vitest/Mocha, Go, Maven/Gradle."""


# ---------------------------------------------------------------------------------------------
# Globs
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """``**/`` is any number of folders (none included), ``*`` and ``?`` stay inside one folder,
    ``{a,b}`` is either."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "{" and "}" in pattern[i:]:
            close = pattern.index("}", i)
            out.append(
                "(?:" + "|".join(re.escape(p) for p in pattern[i + 1 : close].split(",")) + ")"
            )
            i = close + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def matches_glob(path: str, pattern: str) -> bool:
    """Whether a relative POSIX path matches a glob (``**``, ``*``, ``?``, ``{a,b}``)."""
    return _glob_regex(pattern).fullmatch(path) is not None


def is_test_path(path: str, globs: Iterable[str] = DEFAULT_TEST_GLOBS) -> bool:
    """Whether a relative POSIX path is a test file by any of the globs."""
    return any(matches_glob(path, g) for g in globs)
