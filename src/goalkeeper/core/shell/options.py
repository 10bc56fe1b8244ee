"""A command's options and operands, read as GNU getopt reads them, for the readers that judge
what a program does with its operands (``core.shell.writes``). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from goalkeeper.core.shell.line import Word


def read_options(
    args: Sequence[Word],
    takes: str,
    *,
    optional: str = "",
    long_values: tuple[str, ...] = (),
    first_operand_ends: bool = False,
) -> tuple[list[Word], dict[str, Word]]:
    """The operands of ``args`` and its options: ``takes``, short options with a value (the
    rest of the cluster or the next word: ``-t DIR``, ``-tDIR``); ``optional``, short options
    whose value can only be attached (``-i.bak``); ``long_values``, long options that take the
    next word when no ``=`` gives one. Each option maps to its value (an empty word when it
    has none); options end at ``--``, and at the first operand with ``first_operand_ends``
    (a wrapper: ``sudo sed -i …``, the ``-i`` is sed's)."""
    operands: list[Word] = []
    values: dict[str, Word] = {}
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        text = word.text
        if text == "--":
            operands.extend(args[i + 1 :])
            break
        if text.startswith("--") and len(text) > 2:
            key, eq, value = text[2:].partition("=")
            if eq:
                values[key] = Word(value, value, word.literal)
            elif key in long_values and i + 1 < n:
                values[key], i = args[i + 1], i + 1
            else:
                values[key] = Word("", "")
        elif text.startswith("-") and len(text) > 1:
            for j, letter in enumerate(text[1:], start=1):
                if letter in optional:
                    values[letter] = Word(text[j + 1 :], text[j + 1 :], word.literal)
                    break
                if letter in takes:
                    attached = text[j + 1 :]
                    if attached:
                        values[letter] = Word(attached, attached, word.literal)
                    elif i + 1 < n:
                        values[letter], i = args[i + 1], i + 1
                    break
                values[letter] = Word("", "")
        else:
            operands.append(word)
            if first_operand_ends:
                operands.extend(args[i + 1 :])
                break
        i += 1
    return operands, values
