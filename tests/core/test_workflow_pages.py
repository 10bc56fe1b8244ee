"""Procedure texts cut into parts that each fit one message (issue 23): whole blocks while they
fit, a block too big for a part split at line ends, and every part's body, joined, the text."""

from __future__ import annotations

import re

from goalkeeper.core.workflows.pages import paginate, pieces, size, split_block

OPEN = re.compile(r'<procedure-source id="([^"]+)" source="[^"]+"(?: part="(\d+)/(\d+)")?>\n')


def block(ident: str, body: str) -> str:
    return (
        f'<procedure-source id="{ident}" source="procedure/{ident}">\n{body}\n</procedure-source>'
    )


def bodies(text: str) -> dict[str, str]:
    """Each procedure's body as the parts in ``text`` carry it, the parts joined in order."""
    found: dict[str, str] = {}
    for match in OPEN.finditer(text):
        end = text.index("\n</procedure-source>", match.end())
        found[match.group(1)] = found.get(match.group(1), "") + text[match.end() : end]
    return found


BODY = "\n".join(f"line {i}: " + "méthode " * 12 for i in range(200))  # ~23 KB, multi-byte


def test_a_block_too_big_is_split_at_line_ends_into_numbered_parts_that_join_back() -> None:
    """Each part fits, is labelled k/n, ends at a line end, and the bodies joined are the body."""
    parts = split_block(block("tdd", BODY), 5_000, 5_000)
    assert len(parts) > 4
    assert all(size(p) <= 5_000 for p in parts)
    n = len(parts)
    assert [OPEN.match(p).groups()[1:] for p in parts] == [  # type: ignore[union-attr]
        (str(k), str(n)) for k in range(1, n + 1)
    ]
    assert all(bodies(p)["tdd"].endswith("\n") for p in parts[:-1])
    assert "".join(bodies(p)["tdd"] for p in parts) == BODY


def test_the_first_part_fills_the_room_left_and_the_rest_get_whole_parts() -> None:
    """A small first room takes the block's first lines; later parts use the full limit."""
    parts = split_block(block("tdd", BODY), 1_200, 6_000)
    assert size(parts[0]) <= 1_200 < size(parts[1]) <= 6_000
    assert "".join(bodies(p)["tdd"] for p in parts) == BODY


def test_a_line_longer_than_a_part_is_cut_inside_it() -> None:
    """One 20 KB line of three-byte characters: cut inside it, every part still fits."""
    line = "方法" * 3_400
    parts = split_block(block("long", line), 4_000, 4_000)
    assert all(size(p) <= 4_000 for p in parts)
    assert "".join(bodies(p)["long"] for p in parts) == line


def test_whole_blocks_stay_whole_when_they_fit_and_the_order_is_kept() -> None:
    """Small blocks are packed whole, in order; the one that does not fit starts the next part."""
    items = (block("a", "x" * 3_000), block("b", "y" * 3_000), block("c", "z" * 3_000))
    first, rest = paginate(items, 7_000, 7_000)
    assert bodies(first) == {"a": "x" * 3_000, "b": "y" * 3_000}
    assert rest == (items[2],)


def test_a_first_part_with_no_room_leaves_everything_to_the_later_parts() -> None:
    """A frame that takes the whole first message: the methods all follow, none lost."""
    items = (block("a", "x" * 3_000), "## goalkeeper: a note")
    first, rest = paginate(items, 0, 7_000)
    assert first == ""
    assert rest == ("\n\n".join(items),)


def test_pieces_are_the_resolvers_blocks() -> None:
    """Rendered content (blocks joined by blank lines) splits back into its blocks."""
    items = (block("a", "one\n\ntwo"), block("b", "three"))
    assert pieces("\n\n".join(items)) == items
