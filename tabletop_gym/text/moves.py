"""Reading a move from text: strict, and honest about what it could not read.

Every answer gets one class (docs/llm.md):

* ``legal``: it names one legal move, by number (``3``, or ``3. <its text>`` as listed), by
  its exact string, or by a tolerant match that is unambiguous (case, spacing, quotes,
  brackets and a trailing period ignored; or exactly one legal move's string inside a longer
  answer);
* ``illegal``: it names a move of the game that is not legal now (its exact or normalised
  string is another action's name in this position);
* ``unparsable``: anything else, a number outside the list, a number with another move's
  text and an answer that mentions more than one legal move included;
* ``no_answer``: no text came back (a timeout or an error; decided by the caller).

Nothing is ever guessed: a tolerant match is accepted only when exactly one legal move fits.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

LEGAL = "legal"
ILLEGAL = "illegal"
UNPARSABLE = "unparsable"
NO_ANSWER = "no_answer"
CLASSES = (LEGAL, ILLEGAL, UNPARSABLE, NO_ANSWER)
"""The answer classes, in the order reports list them."""

_ANSWER_LINE = re.compile(r"^\s*(?:final\s+)?(?:answer|move)\s*[:=]\s*(.+?)\s*$",
                          re.IGNORECASE | re.MULTILINE)
_STRIP = " \t\r\n\"'`*[]()<>."
_NUMBER = re.compile(r"^(?:move\s*|no\.?\s*|#)?(\d+)$", re.IGNORECASE)
_NUMBERED = re.compile(r"^(\d+)[.)]\s+(.+)$")


@dataclasses.dataclass(frozen=True)
class Parsed:
    """What an answer was read as.

    Attributes:
        kind: One of :data:`CLASSES`.
        index: The position of the move in the legal list (0-based) when ``legal``.
        match: How it was matched: ``"number"``, ``"exact"`` or ``"tolerant"`` (``legal``),
            ``"exact"`` or ``"tolerant"`` (``illegal``), else ``""``.
        reason: Why it is not legal, in words a rethink prompt can quote (``""`` when legal).
    """

    kind: str
    index: int | None = None
    match: str = ""
    reason: str = ""


def normalise(text: str) -> str:
    """``text`` case-folded, with spacing collapsed and quotes, brackets and a final period cut."""
    return " ".join(text.strip(_STRIP).casefold().split())


def _candidate(answer: str) -> str:
    """The part of ``answer`` that should hold the move.

    That is the value of the last ``Move:``/``Answer:`` line if there is one, else the whole
    answer.
    """
    lines = _ANSWER_LINE.findall(answer)
    return (lines[-1] if lines else answer).strip()


def parse_move(
    answer: str,
    legal: Sequence[str],
    other_moves: Callable[[], Sequence[str]] = lambda: (),
) -> Parsed:
    """Classify ``answer`` against the ``legal`` move strings (numbered from 1).

    Args:
        answer: The text to read.
        legal: The legal move strings, in the order of the numbered list.
        other_moves: The names of the game's actions that are not legal now (called only when
            the answer names no legal move, to tell ``illegal`` from ``unparsable``).

    Returns:
        The :class:`Parsed` class, move index and reason.
    """
    k = len(legal)
    cand = _candidate(answer)
    bare = cand.strip(_STRIP)
    if not bare:
        return Parsed(UNPARSABLE, reason="the answer is empty; give a move number or its text")
    number = _NUMBER.match(bare)
    if number:
        i = int(number.group(1))
        if 1 <= i <= k:
            return Parsed(LEGAL, i - 1, "number")
        return Parsed(UNPARSABLE, reason=f"{i} is not a move number; the moves are numbered "
                                         f"1 to {k}")
    numbered = _NUMBERED.match(bare)
    if numbered:
        # "3. draw column 3": the number and the text must name the same move
        i, text = int(numbered.group(1)), normalise(numbered.group(2))
        if 1 <= i <= k and normalise(legal[i - 1]) == text:
            return Parsed(LEGAL, i - 1, "number")
        if text in {normalise(m) for m in legal} or 1 <= i <= k:
            return Parsed(UNPARSABLE, reason=f"the number {i} and the text "
                                             f"'{numbered.group(2)}' do not name the same "
                                             "move; give one move")
    if cand in legal:
        return Parsed(LEGAL, legal.index(cand), "exact")
    if bare in legal:
        return Parsed(LEGAL, legal.index(bare), "tolerant")
    norm = normalise(cand)
    normed = [normalise(m) for m in legal]
    hits = [i for i, m in enumerate(normed) if m == norm]
    if len(hits) == 1:
        return Parsed(LEGAL, hits[0], "tolerant")
    others = list(other_moves())
    if cand in others or bare in others:
        return Parsed(ILLEGAL, match="exact",
                      reason=f"'{bare}' is a move of the game but it is not legal now")
    if norm and norm in {normalise(m) for m in others}:
        return Parsed(ILLEGAL, match="tolerant",
                      reason=f"'{bare}' is a move of the game but it is not legal now")
    whole = normalise(answer)
    inside = [i for i, m in enumerate(normed) if m and m in whole]
    # A move whose name is part of another mentioned move's name is not a second mention.
    inside = [i for i in inside
              if not any(j != i and normed[i] in normed[j] for j in inside)]
    if len(inside) == 1:
        return Parsed(LEGAL, inside[0], "tolerant")
    if len(inside) > 1:
        named = ", ".join(f"'{legal[i]}'" for i in inside[:4])
        return Parsed(UNPARSABLE, reason=f"the answer mentions more than one legal move "
                                         f"({named}); give exactly one")
    return Parsed(UNPARSABLE, reason="the answer names no legal move; give a move number "
                                     f"(1 to {k}) or the exact text of one move")


def other_move_names(state: object, seat: int, legal_actions: Sequence[int],
                     num_actions: int) -> list[str]:
    """The names of every action of the game that is not legal for ``seat`` now.

    An action whose name cannot be formed in this position is left out.
    """
    legal_set = set(legal_actions)
    names = []
    for a in range(num_actions):
        if a in legal_set:
            continue
        try:
            names.append(state.action_to_string(a, seat))  # type: ignore[attr-defined]
        except Exception:
            continue
    return names
