"""Cut what a workflow step delivers into parts that each fit one message of the host (issue 23).

The procedure texts are the upstream methods byte for byte, and some are longer than a host lets
one message be: Claude Code replaces a hook's ``additionalContext`` over 10,000 characters by a
~2 KB preview and a file path, and Codex keeps only the head and tail of a tool result over
10,000 bytes. A cut the host makes is silent and lands anywhere (the user's request was lost
that way), so goalkeeper makes the cut itself: whole pieces (a ``<procedure-source>`` block, a
goalkeeper note) while they fit, and a block larger than a part split at line ends into numbered
parts whose bodies, joined, are the block's body unchanged. Nothing is shortened or dropped.

Sizes are UTF-8 bytes: never fewer than the characters or UTF-16 units a host may count, so a
part under the cap in bytes is under it in every unit. Pure; no I/O.
"""

from __future__ import annotations

from goalkeeper.core.text.lazy_re import lazy_re

_OPEN = lazy_re(r'\A(<procedure-source id="[^"]+" source="[^"]+")>\n')
_CLOSE = "\n</procedure-source>"
_BLOCK_START = lazy_re(r'\n\n(?=<procedure-source id=")')
PART_LABEL = ' part="{k}/{n}"'
_LABEL_ROOM = len(PART_LABEL.format(k=9999, n=9999))
"""Bytes kept for a part's label before the number of parts is known."""


def size(text: str) -> int:
    """UTF-8 bytes (a lone surrogate counted, not an error)."""
    return len(text.encode("utf-8", "surrogatepass"))


def pieces(content: str) -> tuple[str, ...]:
    """Rendered content (blocks joined by blank lines, as the resolver joins them) as its
    blocks; anything before the first block stays its own piece."""
    return tuple(p for p in _BLOCK_START.split(content) if p)


def paginate(items: tuple[str, ...], first: int, rest: int) -> tuple[str, tuple[str, ...]]:
    """``items`` packed in order into a first part of at most ``first`` bytes (possibly empty)
    and further parts of at most ``rest`` bytes, pieces joined by a blank line. A block too big
    for a part of its own is split (``split_block``), its first lines filling the room the
    current part has left; any other piece that does not fit goes whole into the next part."""
    parts: list[str] = []
    current = ""
    budget = first
    for item in items:
        chunks: tuple[str, ...] = (item,)
        if size(item) > rest:
            left = budget - size(current) - (2 if current else 0)
            chunks = split_block(item, left, rest)
        for chunk in chunks:
            joined = f"{current}\n\n{chunk}" if current else chunk
            if size(joined) <= budget:
                current = joined
                continue
            parts.append(current)
            budget = rest
            current = chunk
    parts.append(current)
    return parts[0], tuple(p for p in parts[1:] if p)


def split_block(block: str, first: int, limit: int) -> tuple[str, ...]:
    """A ``<procedure-source>`` block as numbered parts: the first of at most ``first`` bytes
    (left out when no line fits there), the others of at most ``limit``; cut at line ends
    (inside a line only when one line alone is longer than a part). Each part is a block of its
    own, labelled ``part="k/n"``; the parts' bodies joined are the block's body unchanged."""
    opened = _OPEN.match(block)
    if opened is None or not block.endswith(_CLOSE):
        return (block,)
    head = opened.group(1)
    body = block[opened.end() : -len(_CLOSE)]
    frame = size(head) + _LABEL_ROOM + size(">\n") + size(_CLOSE)
    room = limit - frame
    if room < 64:  # no useful part fits: leave the block whole rather than cut it to shreds
        return (block,)
    chunks: list[str] = []
    current = ""
    fits = first - frame if first - frame >= 64 else room
    for line in _lines(body, room):  # every line fits ``room``
        if size(current + line) > fits:
            if current:
                chunks.append(current)
            current, fits = "", room
        current += line
    chunks.append(current)
    n = len(chunks)
    return tuple(
        f"{head}{PART_LABEL.format(k=k, n=n)}>\n{chunk}{_CLOSE}"
        for k, chunk in enumerate(chunks, 1)
    )


def _lines(body: str, room: int) -> list[str]:
    """``body``'s lines with their ends; a line longer than ``room`` cut into pieces that fit."""
    out: list[str] = []
    for line in body.splitlines(keepends=True):
        while size(line) > room:
            cut = room
            while size(line[:cut]) > room:  # multi-byte characters: fewer characters fit
                cut -= max(1, (size(line[:cut]) - room) // 4)
            out.append(line[:cut])
            line = line[cut:]
        out.append(line)
    return out
