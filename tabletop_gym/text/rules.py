"""The rules summaries a language model is given, one fixed text per game (the system prompt).

Each summary is written from the game's rules reference and lives with the game
(``tabletop_gym/envs/<game>/summary.py``); it is the same text in every run. Changing a summary or
the prompt around it changes what a model is asked, so :data:`PROMPT_VERSION` goes up with it,
and results cite it (docs/llm.md).
"""

from __future__ import annotations

import re

from tabletop_gym.registry import RegistryView, game_specs, resolve

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

GRAMMARS: RegistryView[str, tuple[tuple[str, str], ...]] = RegistryView(lambda: {
    spec.name: spec.benchmark.grammar for spec in game_specs() if spec.benchmark.grammar})
"""Each game's move grammar (its benchmark block's ``grammar``): ``(form shown to the model,
pattern of the full move names)``.

The forms are what a model writes in the ``grammar`` mode; text in brackets of a move's full
name may be left out (``draw column 2`` is ``draw column 2 (Moai)``). The patterns are not used
to read answers (the parser compares with the legal moves' names); a test checks that every
action of each game has a name that one pattern matches, so the grammar covers every move."""

def _kind_names(game: str) -> tuple[str, ...]:
    ref = next(spec for spec in game_specs() if spec.name == game).benchmark.kinds
    return () if ref is None else tuple(resolve(ref))


def kind_words(game: str) -> str | None:
    """What ``KIND`` in ``game``'s grammar stands for, when the forms do not say."""
    kinds = _kind_names(game)
    return "KIND is " + ", ".join(kinds[:-1]) + f" or {kinds[-1]}" if kinds else None


def grammar_patterns(game: str) -> list[re.Pattern[str]]:
    """The compiled patterns of ``game``'s grammar (``KIND`` stands for one of its kinds)."""
    kinds = "|".join(re.escape(k) for k in _kind_names(game))
    return [re.compile(pattern.replace("KIND", kinds)) for _, pattern in GRAMMARS[game]]


def grammar_text(game: str) -> str:
    """The move grammar of ``game`` as the ``grammar`` mode's system prompt shows it.

    Raises:
        ValueError: For a game without a grammar.
    """
    if game not in GRAMMARS:
        raise ValueError(f"no move grammar for game {game!r}; known: {sorted(GRAMMARS)}")
    lines = [f"- {form}" for form, _ in GRAMMARS[game]]
    note = kind_words(game)
    return "\n".join(lines + ([f"({note}.)"] if note else []))


def check_mode(mode: str) -> str:
    """``mode`` if it is one of :data:`PROMPT_MODES`.

    Raises:
        ValueError: Naming the modes offered.
    """
    if mode not in PROMPT_MODES:
        raise ValueError(f"prompt mode {mode!r} is not offered; choose one of {PROMPT_MODES}")
    return mode

SUMMARIES: RegistryView[str, str] = RegistryView(lambda: {
    spec.name: resolve(spec.benchmark.summary) for spec in game_specs()
    if spec.benchmark.summary is not None})
"""The rules summary of each game (its benchmark block's ``summary``), by registry name."""


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
