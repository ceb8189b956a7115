"""The rules summaries a language model is given, one fixed text per game (the system prompt).

Each summary is written from the game's rules reference and lives with the game
(``tabletop_gym/envs/<game>/summary.py``); it is the same text in every run. Changing a summary or
the prompt around it changes what a model is asked, so :data:`PROMPT_VERSION` goes up with it,
and results cite it (docs/llm.md).
"""

from __future__ import annotations

import re

from tabletop_gym.envs.positano.summary import SUMMARY as POSITANO_SUMMARY
from tabletop_gym.envs.rapa_nui.rules import KIND_NAMES
from tabletop_gym.envs.rapa_nui.summary import SUMMARY as RAPA_NUI_SUMMARY

PROMPT_VERSION = "tabletop-prompt-v2"
"""Version of the prompt family: the system prompts, the move grammars and the rethink prompts
(the rules summaries included), in both :data:`PROMPT_MODES`.

v2: the ``grammar`` mode (no move list); the ``list`` mode's prompts are v1's, word for word."""

LIST = "list"
GRAMMAR = "grammar"
PROMPT_MODES = (LIST, GRAMMAR)
"""How a decision is put to a model. ``list``: the view ends with the numbered legal moves, and an
answer may give a number. ``grammar``: no list (a listed menu turns the test into multiple choice);
the system prompt gives the game's move grammar (:data:`GRAMMARS`) and the answer must write the
move, which the parser maps to a legal move or classes (:func:`tabletop_gym.text.moves.parse_move`
with ``numbers=False``)."""

GRAMMARS: dict[str, tuple[tuple[str, str], ...]] = {
    "rapa_nui": (
        ("draw column N", r"draw column \d+ \(.+\)"),
        ("play Woodcutter | play Priest | play Moai",
         r"play (Woodcutter|Priest|Moai \(\d+ wood\))"),
        ("play N× H&G KIND  (N = 1, 2 or 3 cards of one kind)",
         r"play [123]× H&G (KIND) \(\d+ wood\)"),
        ("buy KIND | no purchase", r"buy (KIND) \(\d+ wood\)|no purchase"),
        ("offer KIND from the supply | no supply offering",
         r"offer (KIND) from the supply|no supply offering"),
        ("offer own KIND face down | offer own KIND face up",
         r"offer own (KIND) face (down|up)"),
        ("Moai scoring: N VP, rest wood | Moai scoring: N VP + W wood",
         r"Moai scoring: \d+ VP(, rest wood| \+ \d+ wood)"),
        ("remove a Moai from the game", r"remove a Moai from the game"),
    ),
    "positano": (
        ("bid card #N  (N = 1 to 7)", r"bid card #[1-7] \(\d+/\d+/\d+\)"),
        ("bid #N +B  (bid card N with booster +B)", r"bid #[1-7] \(\d+/\d+/\d+\) \+\d+"),
        ("booster +B", r"booster \+\d+"),
        ("lot NL  (a lot, e.g. lot 3B)", r"lot [1-5][A-E]"),
        ("block tile N | build tile N  (the tile's number)",
         r"(block|build) tile \d+ \(.+\)"),
        ("build N blocks | build 1 block | build N blocks at NL",
         r"build (1 block|\d+ blocks)( at [1-5][A-E])?"),
        ("Add-On at NL | skip the Add-On", r"Add-On at [1-5][A-E]|skip the Add-On"),
        ("Remodel at NL | skip the Remodel", r"Remodel at [1-5][A-E]|skip the Remodel"),
        ("2X: double the personal supply | 2X: take +2 blocks | 3X: triple the personal "
         "supply | 3X: take +3 blocks  (2X/3X: ... when the tile is not yet known)",
         r"2X: (double the personal supply|take \+2 blocks)|3X: (triple the personal supply"
         r"|take \+3 blocks)|2X/3X: (multiply the personal supply|take \+2/\+3 blocks)"),
        ("no-op", r"no-op"),
    ),
}
"""Each game's move grammar: ``(form shown to the model, pattern of the full move names)``.

The forms are what a model writes in the ``grammar`` mode; text in brackets of a move's full
name may be left out (``draw column 2`` is ``draw column 2 (Moai)``). The patterns are not used
to read answers (the parser compares with the legal moves' names); a test checks that every
action of each game has a name that one pattern matches, so the grammar covers every move."""

KIND_WORDS = {"rapa_nui": "KIND is " + ", ".join(KIND_NAMES[:-1]) + f" or {KIND_NAMES[-1]}"}
"""What a placeholder of a game's grammar stands for, when the forms do not say."""


def grammar_patterns(game: str) -> list[re.Pattern[str]]:
    """The compiled patterns of ``game``'s grammar (``KIND`` stands for a Rapa Nui kind)."""
    kinds = "|".join(re.escape(k) for k in KIND_NAMES)
    return [re.compile(pattern.replace("KIND", kinds)) for _, pattern in GRAMMARS[game]]


def grammar_text(game: str) -> str:
    """The move grammar of ``game`` as the ``grammar`` mode's system prompt shows it.

    Raises:
        ValueError: For a game without a grammar.
    """
    if game not in GRAMMARS:
        raise ValueError(f"no move grammar for game {game!r}; known: {sorted(GRAMMARS)}")
    lines = [f"- {form}" for form, _ in GRAMMARS[game]]
    note = KIND_WORDS.get(game)
    return "\n".join(lines + ([f"({note}.)"] if note else []))


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`PROMPT_MODES`.

    Raises:
        ValueError: Naming the modes offered.
    """
    if mode not in PROMPT_MODES:
        raise ValueError(f"prompt mode {mode!r} is not offered; choose one of {PROMPT_MODES}")
    return mode

SUMMARIES = {"rapa_nui": RAPA_NUI_SUMMARY, "positano": POSITANO_SUMMARY}
"""The rules summary of each game, by registry name."""


def system_prompt(game: str, mode: str = LIST) -> str:
    """The fixed system prompt of ``game`` in prompt ``mode``: the rules summary and how to answer.

    Raises:
        ValueError: For a game without a summary, or an unknown mode.
    """
    if game not in SUMMARIES:
        raise ValueError(f"no rules summary for game {game!r}; known: {sorted(SUMMARIES)}")
    if check_mode(mode) == GRAMMAR:
        return (
            f"You are playing the board game below as one seat. {SUMMARIES[game]}\n"
            "Each turn you get what your seat may know: the table, your private cards and what "
            "happened since your last decision. No list of moves is given: write your move in "
            "the move grammar below, on a line of its own as 'Move: <move>'. Text in brackets "
            "of a move's name may be left out. A move that is not legal now is refused.\n"
            f"Move grammar:\n{grammar_text(game)}"
        )
    return (
        f"You are playing the board game below as one seat. {SUMMARIES[game]}\n"
        "Each turn you get what your seat may know: the table, your private cards, what happened "
        "since your last decision, and your legal moves as a numbered list. Answer with exactly "
        "one move: its number or its exact text, on a line of its own as 'Move: <number or "
        "text>'. Moves not in the list are refused."
    )


def rethink_prompt(reason: str, tries_left: int, mode: str = LIST) -> str:
    """What a model is told after an answer that was not a legal move (in prompt ``mode``)."""
    tries = f"{tries_left} more tr{'y' if tries_left == 1 else 'ies'} before a fallback move " \
            "is played for you"
    if check_mode(mode) == GRAMMAR:
        return (f"That answer was not accepted: {reason}. Write a legal move in the move "
                f"grammar ({tries}). Answer as 'Move: <move>'.")
    return (f"That answer was not accepted: {reason}. Choose again from the numbered list "
            f"({tries}). Answer as 'Move: <number or text>'.")
