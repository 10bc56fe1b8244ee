"""YAML 1.2 (the core schema) on PyYAML: how goalkeeper reads and writes GOAL.md's frontmatter.

Why PyYAML: GOAL.md is read on every Stop hook, and PyYAML's libyaml parser reads a
frontmatter in about 0.1 ms where ruamel's pure-Python round-trip parser takes about 4 ms;
libyaml also refuses nesting deeper than 1000 levels instead of exhausting the stack.

Why a schema of our own: PyYAML resolves plain scalars by YAML 1.1, where ``no`` is false,
``017`` is octal, ``1:30`` is ninety and a date becomes a ``datetime``. People writing a goal
expect YAML 1.2 (what ruamel and most editors' tooling speak); so this
module resolves by the 1.2 core schema, keeps timestamps as the text that was written, and
refuses a mapping with the same key twice (which 1.1 readers silently collapse to the last).

Writing uses PyYAML's Python emitter (libyaml's cannot indent a list under its key), with
multi-line text as ``|`` blocks that people can edit, and no line folding.
"""

from __future__ import annotations

import functools
import io
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.emitter import Emitter
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.representer import SafeRepresenter
from yaml.resolver import BaseResolver
from yaml.serializer import Serializer

from goalkeeper.core.text.lazy_re import lazy_re

__all__ = [
    "Dumper",
    "Literal",
    "MappingNode",
    "Quoted",
    "ScalarNode",
    "YAMLError",
    "compose",
    "dump",
    "load",
]

YAMLError = yaml.YAMLError
WIDTH = 1 << 20  # never fold a long line: a folded objective or command is hard to edit

_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_STR = "tag:yaml.org,2002:str"


class Resolver(BaseResolver):
    """Plain scalars resolve by the YAML 1.2 core schema; anything else is a string."""


for _tag, _pattern, _first in (
    (_NULL, r"^(?:~|null|Null|NULL|)$", "~nN"),
    (_BOOL, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (_INT, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        _FLOAT,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
):
    Resolver.add_implicit_resolver(
        _tag, lazy_re(_pattern), [*_first, ""] if _tag == _NULL else list(_first)
    )


class Constructor(SafeConstructor):
    """Builds plain Python values by the 1.2 core schema."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key {key_node.value!r}",
                        key_node.start_mark,
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_null12(self, node: Node) -> None:
        return None

    def construct_bool12(self, node: Node) -> bool:
        return str(self.construct_scalar(node)).lower() == "true"  # type: ignore[arg-type]

    def construct_int12(self, node: Node) -> int:
        text = str(self.construct_scalar(node))  # type: ignore[arg-type]
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text, 10)

    def construct_float12(self, node: Node) -> float:
        text = str(self.construct_scalar(node)).lower()  # type: ignore[arg-type]
        if text.endswith(".nan"):
            return float("nan")
        if text.endswith(".inf"):
            return float("-inf") if text.startswith("-") else float("inf")
        return float(text)


Constructor.yaml_constructors = {
    **SafeConstructor.yaml_constructors,
    _NULL: Constructor.construct_null12,
    _BOOL: Constructor.construct_bool12,
    _INT: Constructor.construct_int12,
    _FLOAT: Constructor.construct_float12,
    "tag:yaml.org,2002:timestamp": SafeConstructor.construct_yaml_str,  # times stay text
}


@functools.cache
def _loader() -> type:
    """libyaml's parser when PyYAML was built with it (every wheel is), else the Python one."""
    try:
        from yaml._yaml import CParser as Parser

        class CLoader(Parser, Constructor, Resolver):
            def __init__(self, stream: str) -> None:
                Parser.__init__(self, stream)
                Constructor.__init__(self)
                Resolver.__init__(self)

        return CLoader
    except ImportError:  # pragma: no cover - a PyYAML built without libyaml
        from yaml.composer import Composer
        from yaml.parser import Parser as PyParser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        class PyLoader(Reader, Scanner, PyParser, Composer, Constructor, Resolver):
            def __init__(self, stream: str) -> None:
                Reader.__init__(self, stream)
                Scanner.__init__(self)
                PyParser.__init__(self)
                Composer.__init__(self)
                Constructor.__init__(self)
                Resolver.__init__(self)

        return PyLoader


def load(text: str) -> Any:
    """The one document in ``text`` as plain Python values. Raises ``YAMLError``."""
    return yaml.load(text, Loader=_loader())  # our loader builds plain values only


def compose(text: str) -> Node | None:
    """The node tree of the one document in ``text``, with the marks of where each node is."""
    return yaml.compose(text, Loader=_loader())


class Literal(str):
    """Text to write as a ``|`` block."""

    __slots__ = ()


class Quoted(str):
    """Text to write double-quoted: the one style that can escape every character."""

    __slots__ = ()


class Representer(SafeRepresenter):
    """Shared values are written out each time (no anchors); ``None`` is ``null``."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


Representer.add_representer(Literal, lambda r, d: r.represent_scalar(_STR, str(d), style="|"))
Representer.add_representer(Quoted, lambda r, d: r.represent_scalar(_STR, str(d), style='"'))


class QuotingResolver(Resolver):
    """For writing: text that a YAML 1.1 reader would take for something else (``yes``, a
    date, ``1:30``) is quoted too, so that GOAL.md reads the same in every YAML tool."""


for _first, _rules in yaml.resolver.Resolver.yaml_implicit_resolvers.items():
    for _tag, _regexp in _rules:
        QuotingResolver.add_implicit_resolver(_tag, _regexp, [_first])


class Dumper(Emitter, Serializer, Representer, QuotingResolver):
    """Block style, two spaces, a list indented under its key, keys in the order given."""

    def __init__(self, stream: Any) -> None:
        Emitter.__init__(self, stream, allow_unicode=True, width=WIDTH, indent=2)
        Serializer.__init__(self)
        Representer.__init__(self, default_flow_style=False, sort_keys=False)
        QuotingResolver.__init__(self)

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # "key:\n  - item", not "key:\n- item"


def dump(data: Any) -> str:
    """``data`` as block-style YAML text."""
    stream = io.StringIO()
    dumper = Dumper(stream)
    try:
        dumper.open()
        dumper.represent(data)
        dumper.close()
    finally:
        dumper.dispose()
    return stream.getvalue()
