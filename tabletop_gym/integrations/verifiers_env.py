"""One seat of a game over text as a ``verifiers`` environment (the ``verifiers`` extra).

``verifiers`` (PrimeIntellect's library of environments for LLM reinforcement learning) loads an
environment through a ``load_environment(**kwargs)`` function and runs its rollouts with an
OpenAI-compatible client. :func:`load_environment` returns a ``vf.MultiTurnEnv`` in which the
model plays one seat of a game against our bots:

* each dataset row is one deal: ``info["seed"]`` deals it (the same seed, the same deal, the same
  opponents' choices) and ``info["seat"]`` is the model's seat; the row's ``prompt`` is the
  system prompt of the ``llm:`` agent (:func:`tabletop_gym.text.rules.system_prompt`) and the
  seat's text view at its first decision;
* an answer is read by the move parser (:func:`tabletop_gym.text.moves.parse_move`); a legal one
  is played, the opponents answer, and the next message is the seat's next view (what happened
  since its last decision, the table, its moves). An answer that is not a legal move is told
  why and asked again (``rethinks`` times) before a seeded random legal move is played for it,
  as the ``llm:`` agent does (docs/llm.md); moves that are the only legal one are played without
  asking unless ``ask_forced``;
* the reward is the seat's return over the game (the game's reward by its ``reward_type``, by
  default ``win_loss``: +1 a win, -1 a loss); a rollout cut short (``max_turns``, a model error)
  gets what the seat had earned so far. The metrics count the decisions, the answers that were
  not legal moves, the fallbacks and whether the game finished.

Every message the model gets is its seat's text view, which shows only what that seat may know.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.extras import require
from tabletop_gym.registry import default_game, game_spec
from tabletop_gym.text.moves import LEGAL, other_move_names, parse_move
from tabletop_gym.text.rules import LIST, check_mode, rethink_prompt, system_prompt
from tabletop_gym.text.view import SeatTracker, TextObservation
from tabletop_gym.wrappers.single_agent import SingleAgentEnv, make_registered

require("verifiers", "tabletop_gym.integrations.verifiers_env")

import verifiers as vf  # noqa: E402  (after the check that names the extra)
from datasets import Dataset  # noqa: E402

Messages = list[dict[str, Any]]


class SeatGame:
    """One deal played by the model's seat: our bots play the others, forced moves are played.

    Args:
        game: The game's registry name.
        seed: The deal's seed.
        mode: The prompt mode (``"list"`` or ``"grammar"``).
        ask_forced: Whether a decision with one legal move is put to the model.
        table: The single-agent env's arguments (opponents, seat, game config).
    """

    def __init__(self, game: str, seed: int, mode: str, ask_forced: bool,
                 table: dict[str, Any]):
        self.env: SingleAgentEnv = make_registered(game, **table)
        self.mode = mode
        self.ask_forced = ask_forced
        self.env.reset(seed=seed)
        self.seat = self.env.learner_seat
        self.agent = self.env.aec.possible_agents[self.seat]
        self.tracker = SeatTracker()
        self.total = 0.0
        self.over = False
        self.fallback_rng = np.random.default_rng(seed)
        self.view = self._next_decision()

    def _next_decision(self) -> TextObservation:
        """The seat's view at its next decision, playing its forced moves (or the final view)."""
        while True:
            view = self.tracker.view(self.env.aec, self.agent, self.mode)
            if self.over or len(view.legal_moves) != 1 or self.ask_forced:
                return view
            self._step(view.legal_actions[0])

    def _step(self, action: int) -> None:
        _, reward, terminated, _, _ = self.env.step(action)
        self.total += float(reward)
        self.over = bool(terminated)

    def other_moves(self) -> list[str]:
        """The names of the game's moves that are not legal now (tells illegal from unparsable)."""
        aec = self.env.aec
        return list(other_move_names(aec.game_state, self.seat, self.view.legal_actions,
                                     aec.game.num_distinct_actions))

    def play(self, index: int) -> TextObservation:
        """Play the move at ``index`` of the view's list; the view at the next decision."""
        self.tracker.decided()
        self._step(self.view.legal_actions[index])
        self.view = self._next_decision()
        return self.view

    def actions(self) -> list[int]:
        """Every action of the deal so far (every seat's, in order)."""
        return [int(a) for a in self.env.aec.episode_actions()]


class TabletopVerifiersEnv(vf.MultiTurnEnv):
    """The rollouts of :func:`load_environment` (see the module's docstring).

    Args:
        game: The game's registry name.
        table: The single-agent env's arguments (opponents, seat, game config).
        mode: The prompt mode.
        ask_forced: Whether a decision with one legal move is put to the model.
        rethinks: Further tries after an answer that is not a legal move, before the fallback.
        **kwargs: ``vf.MultiTurnEnv``'s (``dataset``, ``rubric``, ``max_turns``, ...).
    """

    def __init__(self, game: str, table: dict[str, Any], mode: str, ask_forced: bool,
                 rethinks: int, **kwargs: Any):
        self.game = game
        self.table = table
        self.mode = mode
        self.ask_forced = ask_forced
        self.rethinks = rethinks
        super().__init__(**kwargs)

    def deal(self, seed: int) -> SeatGame:
        """The deal of ``seed``, at the seat's first decision."""
        return SeatGame(self.game, seed, self.mode, self.ask_forced, self.table)

    async def setup_state(self, state: vf.State) -> vf.State:
        """Deal the row's game and check that the row's prompt is its first view."""
        seat_game = self.deal(int(state["info"]["seed"]))
        state["seat_game"] = seat_game
        state["tries"] = 0
        state["decisions"] = 1
        state["not_accepted"] = 0
        state["fallbacks"] = 0
        shown = state["prompt"][-1]["content"]
        if shown != seat_game.view.text:
            raise vf.Error(f"the row's prompt is not the first view of the deal of seed "
                           f"{state['info']['seed']} (the dataset was changed)")
        return state

    async def env_response(self, messages: Messages, state: vf.State,
                           **kwargs: Any) -> Messages:
        """Read the model's answer: play it (then the next view) or ask again."""
        del kwargs
        seat_game: SeatGame = state["seat_game"]
        view = seat_game.view
        answer = str(messages[-1].get("content") or "")
        parsed = parse_move(answer, view.legal_moves, seat_game.other_moves,
                            numbers=self.mode == LIST)
        note = ""
        if parsed.kind == LEGAL and parsed.index is not None:
            index = parsed.index
        else:
            state["not_accepted"] += 1
            state["tries"] += 1
            reason = parsed.reason or parsed.kind
            if state["tries"] <= self.rethinks:
                return [{"role": "user", "content": rethink_prompt(
                    reason, self.rethinks - state["tries"] + 1, self.mode)}]
            state["fallbacks"] += 1
            index = int(seat_game.fallback_rng.integers(len(view.legal_moves)))
            note = (f"That answer was not accepted: {reason}. A random legal move was played "
                    f"for you: {view.legal_moves[index]}.\n\n")
        state["tries"] = 0
        nxt = seat_game.play(index)
        if seat_game.over:
            final = [{"role": "user", "content": f"{note}{nxt.text}\n\nThe game is over: your "
                                                 f"return is {seat_game.total:g}."}]
            state["final_env_response"] = final
            return final
        state["decisions"] += 1
        return [{"role": "user", "content": note + nxt.text}]

    @vf.cleanup
    async def keep_the_outcome(self, state: vf.State) -> None:
        """Keep the deal's outcome in the state (JSON) and let the game go."""
        seat_game = state.pop("seat_game", None)
        if seat_game is not None:
            state["game_return"] = seat_game.total
            state["finished"] = seat_game.over
            state["actions"] = seat_game.actions()


def game_return(state: vf.State) -> float:
    """The seat's return over the game (so far, for a rollout cut short)."""
    return float(state.get("game_return", 0.0))


def finished(state: vf.State) -> float:
    """1 when the game was played to its end."""
    return float(bool(state.get("finished")))


def decisions(state: vf.State) -> float:
    """The decisions put to the model."""
    return float(state.get("decisions", 0))


def not_accepted(state: vf.State) -> float:
    """The answers that were not a legal move."""
    return float(state.get("not_accepted", 0))


def fallbacks(state: vf.State) -> float:
    """The decisions a random legal move was played for."""
    return float(state.get("fallbacks", 0))


def load_environment(game: str | None = None, seed: int = 0, num_examples: int = 16,
                     opponents: Any = None, seat: int = 0, seat_mode: str = "fixed",
                     mode: str = LIST, ask_forced: bool = False, rethinks: int = 2,
                     max_turns: int = -1, **config: Any) -> TabletopVerifiersEnv:
    """A ``verifiers`` environment in which the model plays one seat of ``game``.

    Args:
        game: A registered game (default: the text env's default game).
        seed: The first row's deal; row ``i`` deals seed ``seed + i``.
        num_examples: How many rows (deals) the dataset has.
        opponents: The other seats' agents, as the single-agent env takes them (one spec for
            all, or one per other seat; default: the game's registered default).
        seat: The model's seat (with ``seat_mode="rotate"``, the seat of seed 0).
        seat_mode: ``"fixed"`` or ``"rotate"`` (row seed ``s`` plays seat ``(seat + s) mod n``).
        mode: The prompt mode: ``"list"`` (numbered legal moves) or ``"grammar"`` (none).
        ask_forced: Put decisions with one legal move to the model too.
        rethinks: Further tries after an answer that is not a legal move (0..10).
        max_turns: The most model turns in a rollout (-1: until the game ends).
        **config: The game's config (``num_players``, variants).

    Raises:
        ValueError: On a bad argument, saying what is allowed; nothing is dealt then.
    """
    name = game_spec(game if game is not None else default_game("text")).name
    if isinstance(num_examples, bool) or not isinstance(num_examples, int) or num_examples < 1:
        raise ValueError(f"num_examples must be an int >= 1, got {num_examples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    if isinstance(rethinks, bool) or not isinstance(rethinks, int) or not 0 <= rethinks <= 10:
        raise ValueError(f"rethinks must be an int in 0..10, got {rethinks!r}")
    if seat_mode not in ("fixed", "rotate"):
        raise ValueError(f"seat_mode={seat_mode!r} is not allowed; choose 'fixed' or 'rotate' "
                         "(a row's seat follows from its seed)")
    check_mode(mode)
    table = {**config, "learner_seat": seat, "seat_mode": seat_mode}
    if opponents is not None:
        table["opponents"] = opponents
    system = system_prompt(name, mode)
    rows = []
    for s in range(seed, seed + num_examples):
        first = SeatGame(name, s, mode, ask_forced, table)
        if first.over:
            raise ValueError(f"the deal of seed {s} ends before seat {first.seat}'s first "
                             "decision; give other seeds")
        rows.append({"prompt": [{"role": "system", "content": system},
                                {"role": "user", "content": first.view.text}],
                     "answer": "", "task": f"tabletop-{name}",
                     "info": {"seed": s, "seat": first.seat}})
    rubric = vf.Rubric(funcs=[game_return], weights=[1.0])
    for metric in (finished, decisions, not_accepted, fallbacks):
        rubric.add_metric(metric)
    return TabletopVerifiersEnv(name, table, mode, bool(ask_forced), rethinks,
                                dataset=Dataset.from_list(rows), rubric=rubric,
                                max_turns=max_turns,
                                env_args={"game": name, "seed": seed,
                                          "num_examples": num_examples, "mode": mode})
