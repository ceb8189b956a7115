"""What one seat may know, as text, and its legal moves as numbered, unambiguous strings.

A text view is a thin layer over what the envs already declare (docs/design.md, "Text views"):

* the table is the env's own text render for that seat (``renderer(state, seat)``: the public
  table and the seat's private cards), which the resampling no-leak test already covers;
* the history since the seat's last decision is the public form of every action
  (``public_action_string(action, seat)``) and the env's narrator lines (what an action revealed
  to everyone), replayed from the episode's start;
* the decision is the seat's legal moves, named by ``action_to_string``: the acting seat may read
  the full content of its own moves. The names are unique in a position (a duplicate gets the
  action id appended, so two moves never read the same);
* at the end, the final scoring is spelled out with what the rules reveal then. In Rapa Nui that
  is every face-down offering, the count of each kind on the stone, each kind's value and every
  seat's offering points (docs/rules/rapa_nui.md §3.1.5, §7.4), so the scoring can be checked by
  hand.

Nothing here reads more than a seat may know, except to replay the public history: the replay
state is privileged (it holds every hand), but only the public strings it produces leave it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from tabletop_gym.core.game import State

Renderer = Callable[[State, int | None], str]
Narrator = Callable[[State, int, State], list[str]]

TEXT_VIEW_VERSION = "text-v2"
"""Version of the text layout; cite it with results of agents that read text (docs/llm.md).

text-v2: a Rapa Nui display names its H&G cards as everywhere else (``H&G Sweet potato``, was
``SweetPotato``)."""


@dataclasses.dataclass(frozen=True)
class TextObservation:
    """One seat's view as text, with its legal moves.

    Attributes:
        text: The whole view: table, private information, history, decision and the numbered
            legal moves.
        legal_moves: The move strings, in the order of the numbered list (move ``i + 1`` is
            ``legal_moves[i]``); empty when the seat is not to act.
        legal_actions: The action id of each move, in the same order.
        seat: The engine seat this view belongs to.
        game_over: Whether the game has ended.
    """

    text: str
    legal_moves: list[str]
    legal_actions: list[int]
    seat: int
    game_over: bool

    def as_dict(self) -> dict[str, Any]:
        """``{"text": str, "legal_moves": list[str]}``: what the text env's ``observe`` gives."""
        return {"text": self.text, "legal_moves": list(self.legal_moves)}


def unique_names(names: Sequence[str], actions: Sequence[int]) -> list[str]:
    """``names`` with every name that occurs twice made unique by its action id.

    Args:
        names: One name per action.
        actions: The action ids, in the same order.

    Returns:
        The names, where each duplicate reads ``"<name> (move id <action>)"``.
    """
    counts = Counter(names)
    return [n if counts[n] == 1 else f"{n} (move id {a})"
            for n, a in zip(names, actions, strict=True)]


def legal_moves(state: State, seat: int) -> list[tuple[int, str]]:
    """The legal ``(action id, move string)`` pairs of ``seat`` (empty unless it is to act).

    The move strings are ``action_to_string(action, seat)``, made unique by
    :func:`unique_names`; the order is that of ``legal_actions()`` (ascending ids), so the
    numbered list is stable for a position.
    """
    if state.is_terminal() or state.current_player() != seat:
        return []
    actions = list(state.legal_actions())
    names = unique_names([state.action_to_string(a, seat) for a in actions], actions)
    return list(zip(actions, names, strict=True))


def final_lines(state: State) -> list[str]:
    """The end-of-game lines every seat reads: the scores and the winners.

    The final scoring that the rules reveal (Rapa Nui's face-down offerings and kind values) is
    part of the table's own text at the end, which the view shows above.
    """
    lines: list[str] = []
    scores = state.scores()
    lines.append("Game over. Final scores: "
                 + ", ".join(f"seat {q} {float(v):g}" for q, v in enumerate(scores))
                 + "; winner(s): " + ", ".join(f"seat {q}" for q in state.winners()))
    return lines


def game_name_of(state: State) -> str:
    """The registry name of the game ``state`` belongs to (through a turn-based transform)."""
    game = state.game
    return str(getattr(game, "inner", game).name)


def seat_view(
    state: State,
    seat: int,
    renderer: Renderer,
    history: Sequence[str] = (),
    title: str | None = None,
    mode: str = "list",
) -> TextObservation:
    """The text view of ``seat`` in ``state``.

    Args:
        state: The game state (the view shows only what ``seat`` may know of it).
        seat: The engine seat.
        renderer: The env's text render (``type(env).renderer``).
        history: The public lines since the seat's last decision (:class:`PublicHistory`).
        title: First line; default ``"You are seat <seat>."``.
        mode: ``"list"``: the decision ends with the numbered legal moves; ``"grammar"``: it
            does not (the move is written in the game's move grammar, given in the system
            prompt; :data:`tabletop_gym.text.rules.PROMPT_MODES`). The returned moves are the
            same in both.

    Returns:
        The view and its legal moves (numbered in the text in the ``list`` mode).
    """
    if mode not in ("list", "grammar"):
        raise ValueError(f"prompt mode {mode!r} is not offered; choose 'list' or 'grammar'")
    moves = legal_moves(state, seat)
    over = state.is_terminal()
    parts = [title or f"You are seat {seat}.", "", "== Table ==", renderer(state, seat)]
    parts += ["", "== Since your last decision =="]
    parts += [f"- {line}" for line in history] if history else ["- nothing"]
    parts += ["", "== Decision =="]
    if over:
        parts += final_lines(state)
    elif moves and mode == "grammar":
        parts.append(f"You are to act (phase {state.phase()}). Write one legal move in the "
                     "move grammar, as 'Move: <move>'.")
    elif moves:
        parts.append(f"You are to act (phase {state.phase()}). Legal moves:")
        parts += [f"{i}. {name}" for i, (_, name) in enumerate(moves, 1)]
        parts.append("Answer with one move: its number or its exact text.")
    else:
        parts.append(f"Seat {state.current_player()} is to act; you wait.")
    return TextObservation(
        text="\n".join(parts),
        legal_moves=[name for _, name in moves],
        legal_actions=[a for a, _ in moves],
        seat=seat,
        game_over=over,
    )


class PublicHistory:
    """One seat's public account of an episode, replayed incrementally from its start.

    Each action reads as ``"seat k: <public string>"`` (``"you (seat k): ..."`` for the seat's
    own), followed by the narrator's lines (what the action revealed to everyone).

    Args:
        start: A fresh copy of the episode's start state (privileged; kept inside).
        seat: The engine seat whose account this is.
        narrator: The env's narrator (``type(env).narrator``).
    """

    def __init__(self, start: State, seat: int, narrator: Narrator):
        self._state = start
        self.seat = seat
        self._narrator = narrator
        self.actions: list[int] = []
        """The actions replayed so far."""
        self.lines: list[str] = []
        """Every line so far."""
        self.marks: list[int] = []
        """``len(lines)`` after each action (``marks[i]``: after ``actions[i]``)."""

    def advance(self, actions: Sequence[int]) -> None:
        """Replay the actions that follow those already seen (``actions`` is the whole list).

        Raises:
            ValueError: When ``actions`` does not extend the actions already replayed.
        """
        done = len(self.actions)
        if list(actions[:done]) != self.actions:
            raise ValueError("these actions are not a continuation of the replayed episode")
        for action in actions[done:]:
            before = self._state.clone()
            actor = before.current_player()
            who = f"you (seat {actor})" if actor == self.seat else f"seat {actor}"
            self.lines.append(f"{who}: {before.public_action_string(action, self.seat)}")
            self._state.apply_action(action)
            self.lines += self._narrator(before, action, self._state)
            self.actions.append(action)
            self.marks.append(len(self.lines))

    def since(self, count: int) -> list[str]:
        """The lines written after the first ``count`` actions."""
        start = self.marks[count - 1] if count > 0 else 0
        return self.lines[start:]


class SeatTracker:
    """Keeps one seat's :class:`PublicHistory` in step with an AEC env, across episodes.

    :meth:`view` is the seat's text view now, with the history since the seat's last decision
    (the last time :meth:`decided` was called, or the start of the episode).
    """

    def __init__(self) -> None:
        self._history: PublicHistory | None = None
        self._key: tuple[int, int, int] | None = None
        self._last_decision = 0

    def _sync(self, env: Any, seat: int) -> PublicHistory:
        actions = env.episode_actions()
        hist = self._history
        key = (id(env), env.episode, seat)
        if hist is None or key != self._key:
            hist = PublicHistory(env.episode_start(), seat, type(env).narrator)
            self._history, self._key = hist, key
            self._last_decision = 0
        hist.advance(actions)
        return hist

    def view(self, env: Any, agent: str, mode: str = "list") -> TextObservation:
        """The text view of ``agent`` in ``env`` now (in prompt ``mode``, see :func:`seat_view`)."""
        raw = env.unwrapped
        seat = raw.seat_of(agent)
        hist = self._sync(raw, seat)
        return seat_view(raw.game_state, seat, type(raw).renderer,
                         hist.since(self._last_decision),
                         title=f"You are {agent} (seat {seat}).", mode=mode)

    def decided(self) -> None:
        """Mark the current point as this seat's last decision."""
        if self._history is not None:
            self._last_decision = len(self._history.actions)
