"""The rules summaries a language model is given, one fixed text per game (the system prompt).

Each summary is written from the game's rules reference and lives with the game
(``tabletop_gym/envs/<game>/summary.py``); it is the same text in every run. Changing a summary or
the prompt around it changes what a model is asked, so :data:`PROMPT_VERSION` goes up with it,
and results cite it (docs/llm.md).
"""

from __future__ import annotations

from tabletop_gym.envs.positano.summary import SUMMARY as POSITANO_SUMMARY
from tabletop_gym.envs.rapa_nui.summary import SUMMARY as RAPA_NUI_SUMMARY

PROMPT_VERSION = "tabletop-prompt-v1"
"""Version of the system prompts and rethink prompts (the rules summaries included)."""

SUMMARIES = {"rapa_nui": RAPA_NUI_SUMMARY, "positano": POSITANO_SUMMARY}
"""The rules summary of each game, by registry name."""


def system_prompt(game: str) -> str:
    """The fixed system prompt of ``game``: the rules summary and how to answer.

    Raises:
        ValueError: For a game without a summary.
    """
    if game not in SUMMARIES:
        raise ValueError(f"no rules summary for game {game!r}; known: {sorted(SUMMARIES)}")
    return (
        f"You are playing the board game below as one seat. {SUMMARIES[game]}\n"
        "Each turn you get what your seat may know: the table, your private cards, what happened "
        "since your last decision, and your legal moves as a numbered list. Answer with exactly "
        "one move: its number or its exact text, on a line of its own as 'Move: <number or "
        "text>'. Moves not in the list are refused."
    )


def rethink_prompt(reason: str, tries_left: int) -> str:
    """What a model is told after an answer that was not a legal move."""
    return (f"That answer was not accepted: {reason}. Choose again from the numbered list "
            f"({tries_left} more tr{'y' if tries_left == 1 else 'ies'} before a fallback "
            "move is played for you). Answer as 'Move: <number or text>'.")
