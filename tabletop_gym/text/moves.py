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
import unicodedata
from collections.abc import Callable, Sequence

LEGAL = "legal"
ILLEGAL = "illegal"
UNPARSABLE = "unparsable"
NO_ANSWER = "no_answer"
CLASSES = (LEGAL, ILLEGAL, UNPARSABLE, NO_ANSWER)
"""The answer classes, in the order reports list them."""

# Every pattern is matched at one position of one line (re.match, no "$" after a repeat that
# could give characters back), so reading an answer takes time linear in its length: a search
# for "^...$" over many lines, or a lazy group before "\s*$", retries from every position and
# took seconds on a few thousand newlines or spaces.
_ANSWER_HEAD = re.compile(r"\s*(?:final\s+)?(?:answer|move)\s*[:=]", re.IGNORECASE)
_STRIP = " \t\r\n\"'`*[]()<>."
_NUMBER = re.compile(r"(?:move\s*|no\.?\s*|#)?(\d+)", re.IGNORECASE)
_NUMBERED_HEAD = re.compile(r"(\d+)[.)]")
_DIGITS = re.compile(r"\d+")


@dataclasses.dataclass(frozen=True)
class Parsed:
    """What an answer was read as.

    Attributes:
        kind: One of :data:`CLASSES`.
        index: The position of the move in the legal list (0-based) when ``legal``.
        match: How it was matched: ``"number"``, ``"exact"``, ``"tolerant"`` or ``"short"``
            (``legal``; ``"short"``: the move grammar's short form, :func:`short_form`),
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

    That is the value of the last ``Move:``/``Answer:`` line if there is one (a value on the
    next non-blank line when the line ends at its colon), else the whole answer.
    """
    lines = answer.split("\n")
    value = ""
    i = 0
    while i < len(lines):
        head = _ANSWER_HEAD.match(lines[i])
        i += 1
        if head is None:
            continue
        rest = lines[i - 1][head.end():].strip()
        while not rest and i < len(lines):
            # "Move:" with the move below it; the blank lines skipped here hold no head
            rest = lines[i].strip()
            if not rest:
                i += 1
        value = rest or value
    return value or answer.strip()


def shown(text: str, limit: int = 40, quote: bool = False) -> str:
    """``text`` as a message quotes it: a long text cut after ``limit`` characters, with its length.

    A reason goes into the rethink prompt and the log, and an error message onto one line, so
    an answer of a million characters is not repeated in it. ``quote``: as ``repr`` shows it.
    """
    body = text[:limit]
    body = repr(body) if quote else body
    return body if len(text) <= limit else f"{body}... ({len(text)} characters)"


def numbered(k: int) -> str:
    """How a list of ``k`` moves is numbered, in words (one move is not a range "1 to 1")."""
    return "the only move is number 1" if k == 1 else f"the moves are numbered 1 to {k}"


def what_to_give(k: int) -> str:
    """What an answer to a list of ``k`` moves may be, in words."""
    if k == 1:
        return "the move's number (1) or its exact text"
    return f"a move number (1 to {k}) or the exact text of one move"


def list_index(digits: str, k: int) -> int | None:
    """The 0-based position of move number ``digits`` in a list of ``k``; ``None`` outside 1..k.

    ``digits`` are decimal digits of any script (Unicode category Nd, as ``int`` reads them).
    The number is compared by its length first, so a number of thousands of digits is refused
    without converting it (``int`` refuses more than 4,300 digits).
    """
    plain = "".join(str(unicodedata.decimal(c)) for c in digits).lstrip("0")
    if not plain or len(plain) > len(str(k)):
        return None
    number = int(plain)
    return number - 1 if number <= k else None


def is_number(text: str) -> bool:
    """Whether ``text`` is a move number: decimal digits only (no sign, no superscripts)."""
    return _DIGITS.fullmatch(text) is not None


_BRACKETED = re.compile(r"\s*\([^()]*\)")


def short_form(name: str) -> str:
    """A move's name as the move grammar lets it be written: bracketed text cut, normalised.

    ``draw column 2 (Moai)`` is ``draw column 2``; ``play 2× H&G Fish (1 wood)`` is
    ``play 2x h&g fish`` (``×`` may be written ``x``).
    """
    return normalise(_BRACKETED.sub("", name).replace("×", "x"))


def parse_move(
    answer: str,
    legal: Sequence[str],
    other_moves: Callable[[], Sequence[str]] = lambda: (),
    numbers: bool = True,
) -> Parsed:
    """Classify ``answer`` against the ``legal`` move strings (numbered from 1).

    Args:
        answer: The text to read.
        legal: The legal move strings, in the order of the numbered list.
        other_moves: The names of the game's actions that are not legal now (called only when
            the answer names no legal move, to tell ``illegal`` from ``unparsable``).
        numbers: Whether the moves were listed with numbers (the ``list`` prompt mode). Without
            a list (``grammar`` mode) a number is unparsable, and a move may also be written in
            its :func:`short_form` (matched ``"short"`` when exactly one move has it).

    Returns:
        The :class:`Parsed` class, move index and reason.
    """
    k = len(legal)
    cand = _candidate(answer)
    bare = cand.strip(_STRIP)
    if not bare:
        what = "a move number or its text" if numbers else "a move in the move grammar"
        return Parsed(UNPARSABLE, reason=f"the answer is empty; give {what}")
    if not numbers:
        return _parse_written(answer, cand, bare, legal, other_moves)
    number = _NUMBER.fullmatch(bare)
    if number:
        at = list_index(number.group(1), k)
        if at is not None:
            return Parsed(LEGAL, at, "number")
        return Parsed(UNPARSABLE, reason=f"{shown(number.group(1), 12)} is not a move number; "
                                         f"{numbered(k)}")
    head = _NUMBERED_HEAD.match(bare)
    rest = bare[head.end():] if head else ""
    said = rest.lstrip()
    if head and said != rest and said and "\n" not in said:
        # "3. draw column 3": the number and the text must name the same move
        at, text = list_index(head.group(1), k), normalise(said)
        if at is not None and normalise(legal[at]) == text:
            return Parsed(LEGAL, at, "number")
        if text in {normalise(m) for m in legal} or at is not None:
            return Parsed(UNPARSABLE, reason=f"the number {shown(head.group(1), 12)} and the text "
                                             f"'{shown(said)}' do not name the same move; give one "
                                             "move")
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
    return _mentioned(normalise(answer), normed, legal,
                      f"the answer names no legal move; give {what_to_give(k)}")


def _mentioned(whole: str, names: Sequence[str], legal: Sequence[str], none: str) -> Parsed:
    """The one legal move whose (normalised) name ``whole`` mentions, or why there is none.

    Args:
        whole: The normalised answer.
        names: Each legal move's name as it is looked for in ``whole``.
        legal: The legal moves' texts, for the message.
        none: The reason given when no move is mentioned.
    """
    inside = [i for i, m in enumerate(names) if m and m in whole]
    # A move whose name is part of another mentioned move's name is not a second mention.
    inside = [i for i in inside
              if not any(j != i and names[i] in names[j] for j in inside)]
    if len(inside) == 1:
        return Parsed(LEGAL, inside[0], "tolerant")
    if len(inside) > 1:
        named = ", ".join(f"'{legal[i]}'" for i in inside[:4])
        return Parsed(UNPARSABLE, reason=f"the answer mentions more than one legal move "
                                         f"({named}); give exactly one")
    return Parsed(UNPARSABLE, reason=none)


def _parse_written(answer: str, cand: str, bare: str, legal: Sequence[str],
                   other_moves: Callable[[], Sequence[str]]) -> Parsed:
    """:func:`parse_move` without a numbered list: the move's text or its short form only."""
    if _NUMBER.fullmatch(bare):
        return Parsed(UNPARSABLE, reason=f"{shown(bare, 12)} is a number, but no moves were "
                                         "numbered; write the move in the move grammar")
    if cand in legal:
        return Parsed(LEGAL, legal.index(cand), "exact")
    norm = normalise(cand)
    hits = [i for i, m in enumerate(legal) if normalise(m) == norm]
    if len(hits) == 1:
        return Parsed(LEGAL, hits[0], "tolerant")
    short = short_form(cand)
    shorts = [short_form(m) for m in legal]
    hits = [i for i, m in enumerate(shorts) if m == short]
    if len(hits) == 1:
        return Parsed(LEGAL, hits[0], "short")
    if len(hits) > 1:
        named = ", ".join(f"'{legal[i]}'" for i in hits[:4])
        return Parsed(UNPARSABLE, reason=f"'{shown(bare)}' fits more than one legal move "
                                         f"({named}); write the whole move")
    others = list(other_moves())
    if norm and (norm in {normalise(m) for m in others}
                 or short in {short_form(m) for m in others}):
        return Parsed(ILLEGAL, match="tolerant",
                      reason=f"'{shown(bare)}' is a move of the game but it is not legal now")
    return _mentioned(normalise(answer.replace("×", "x")), shorts, legal,
                      "the answer names no legal move; write one legal move in the move grammar")


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
