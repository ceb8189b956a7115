"""Information-set Monte Carlo tree search (single-observer ISMCTS).

The search agent of the baselines (Cowling, Powley & Whitehouse 2012, "Information Set Monte Carlo
Tree Search"). Every simulation starts from a *determinization*: a full state drawn with
``state.resample_hidden(seat, rng)``, i.e. the true position with everything the acting seat cannot
see re-dealt at random. The tree is keyed by action sequences, so one tree gathers statistics over
all determinizations; at a node only the children legal in the current determinization compete,
with UCB1 using availability counts in place of the parent's visits. A leaf is expanded by one
untried action (with heuristic rollouts: the heuristic's own move first, so the lines below a
fresh node follow the heuristic rather than a random first move) and finished with a rollout by
the random or the heuristic policy. A finished game is worth, to each seat, a mix of its win
share and its margin over the best other seat squashed by ``tanh(margin / 10)`` (values stay in
[0, 1] whatever the game's score bounds, so one exploration constant suits both games). The move
played is the root child with the most visits (ties: the higher mean value, then the child
expanded first).

The agent reads the engine state only through ``resample_hidden``, which re-deals every hidden part
from a canonical order, so what the agent decides is a function of its own view and its seed
(``tests/agents/test_ismcts.py`` checks that decisions do not change when the hidden parts do).

The ``guided`` variant is for games whose random rollouts say little and whose heuristic
rollouts are too dear to grow a deep tree in a second (Rapa Nui: ~120 decisions a game, a
heuristic rollout of the rest costs milliseconds). It keeps the determinizations but spends them
on the root alone: the candidates are the heuristic's own move and the other legal actions (at
most :data:`GUIDED_WIDTH`), and every *round* draws one determinization and one seed for the
rollout bots, then plays every candidate on that same deal with the same bot seeds, the heuristic
moving every seat to the end. Each candidate is thus compared with the heuristic's move on paired
deals (common random numbers), so the difference of their values is free of the deal's luck. It
plays another move than the heuristic's only when that move's mean paired gain exceeds
:data:`SWITCH_Z` standard errors: a one-step policy improvement of the heuristic that falls back to
it when the evidence is thin. ``simulations`` counts rollouts (rounds times candidates).

Named ``"ismcts"``, ``"ismcts:<simulations>"``, ``"ismcts:<simulations>:heuristic"`` or
``"ismcts:<simulations>:guided"`` wherever opponents are named.

Example:
    >>> from tabletop_gym.arena.evaluation import evaluate
    >>> res = evaluate("rapa_nui", "ismcts:8", "random", n_games=2, seed=0, num_players=2)
    >>> res.n_games
    2
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_gym.core.game import Game, State
from tabletop_gym.core.observer import Observer

ROLLOUTS = ("random", "heuristic", "guided")
DEFAULT_SIMULATIONS = 200
GUIDED_WIDTH = 6
"""Root candidates of the guided search: the heuristic's move and at most this many in all (a
Rapa Nui decision has 2-6 legal actions, so there it weighs every one)."""
SWITCH_Z = 1.0
"""Standard errors by which a candidate's mean paired gain over the heuristic's move must exceed
zero before the guided search plays it instead: with a few rounds the best-looking of several
candidates is often best by noise alone, and the heuristic's move is the better default."""
SCORE_WEIGHT = 0.5
"""Share of a simulation's value given to the score margin (the rest is the win/loss). A single
rollout's win or loss is a coin flip in a close position; its margin says by how much, so with a
few hundred simulations the margin separates moves the win/loss cannot."""
MARGIN_SCALE = 10.0
"""Points of margin that move the margin term most of the way (``tanh(margin / scale)``): about
one standard deviation of the final margin between two heuristic bots in both games. The value
stays in [0, 1], the range the exploration constant is tuned for, whatever the score bounds."""


class _Node:
    __slots__ = ("avail", "children", "order", "player", "value", "visits")

    def __init__(self, player: int, order: int = 0):
        self.player = player  # the seat whose action led here; the value is from its side
        self.order = order  # how many siblings were expanded before it
        self.visits = 0
        self.value = 0.0
        self.avail = 0
        self.children: dict[int, _Node] = {}


def parse_spec(spec: str) -> tuple[int, str]:
    """Read ``"ismcts[:simulations[:rollout]]"``.

    Raises:
        ValueError: When the name, the budget or the rollout policy is not understood.
    """
    parts = spec.split(":")
    if parts[0] != "ismcts" or len(parts) > 3:
        raise ValueError(f"cannot read {spec!r}; write 'ismcts', 'ismcts:200' or "
                         "'ismcts:200:heuristic'")
    sims = DEFAULT_SIMULATIONS
    if len(parts) > 1:
        if not parts[1].isdigit() or int(parts[1]) < 1:
            raise ValueError(f"the simulation budget in {spec!r} must be a positive integer")
        sims = int(parts[1])
    rollout = parts[2] if len(parts) > 2 else "random"
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout {rollout!r} in {spec!r} is not one of {ROLLOUTS}")
    return sims, rollout


class ISMCTSAgent:
    """Single-observer ISMCTS over the engine (``clone``/``resample_hidden``).

    A search agent needs the position, not an observation vector: callers hand it the engine state
    with :meth:`act_in` (:func:`tabletop_gym.agents.base.choose_action` does this for every agent
    that has ``act_in``). It determinizes that state before looking at it.

    Args:
        game: The game (its ``score_bounds`` scale the score margin).
        observer: The observer whose observations the heuristic rollout policy reads.
        rng: Numpy generator or seed; the search draws from a ``random.Random`` seeded from it.
        simulations: Simulations per decision.
        rollout: ``"random"`` or ``"heuristic"`` rollout policy, or ``"guided"`` (the paired
            root search with heuristic rollouts of the module's docstring).
        exploration: The UCB1 exploration constant (values lie in [0, 1]).
        score_weight: Share of the value given to the score margin (:data:`SCORE_WEIGHT`).
        margin_scale: Points of margin of :data:`MARGIN_SCALE`.
        width: Root candidates of the guided search (:data:`GUIDED_WIDTH`).
        switch_z: Standard errors of paired gain the guided search needs to leave the
            heuristic's move (:data:`SWITCH_Z`).
    """

    def __init__(
        self,
        game: Game,
        observer: Observer | None = None,
        rng: np.random.Generator | int | None = None,
        simulations: int = DEFAULT_SIMULATIONS,
        rollout: str = "random",
        exploration: float = 0.7,
        score_weight: float = SCORE_WEIGHT,
        margin_scale: float = MARGIN_SCALE,
        width: int = GUIDED_WIDTH,
        switch_z: float = SWITCH_Z,
    ):
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout={rollout!r}; choose one of {ROLLOUTS}")
        if rollout != "random" and observer is None:
            raise ValueError("heuristic rollouts need the observer of the game")
        self.game = game
        self.observer = observer
        self.simulations = simulations
        self.rollout = rollout
        self.exploration = float(exploration)
        self.score_weight = float(score_weight)
        self.margin_scale = float(margin_scale)
        if isinstance(width, bool) or not isinstance(width, int) or width < 2:
            raise ValueError(f"width must be an integer of at least 2, got {width!r}")
        self.width = width
        self.switch_z = float(switch_z)
        self.name = f"ismcts:{simulations}" + ("" if rollout == "random" else f":{rollout}")
        self.seed(rng if isinstance(rng, int) or rng is None else
                  int(rng.integers(0, 2**63 - 1)))
        self._bots: dict[int, Any] = {}
        self.last_gains: dict[int, float] = {}
        """After a guided decision with a choice: each root candidate's mean paired gain in value
        over the heuristic's move (which has 0), the estimates a distilled policy learns from."""
        self.last_values: dict[int, float] = {}
        """After a guided decision with a choice: each root candidate's mean value in [0, 1] to
        the seat that searched (:meth:`_values`) over the rounds, the move's own estimate where
        :attr:`last_gains` is its difference from the heuristic's move."""

    def seed(self, seed: int | None) -> None:
        """Reseed the search's generator."""
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Refuse: a search agent needs the position (use :meth:`act_in`)."""
        raise TypeError("ISMCTSAgent searches the engine: call act_in(state, seat), or play it "
                        "through tabletop_gym.agents.base.choose_action / evaluate / the envs")

    # --- search -------------------------------------------------------------------------------

    def act_in(self, state: State, seat: int) -> int:
        """Search from ``seat``'s information set in ``state`` and return the chosen action."""
        legal = state.legal_actions()
        if state.current_player() != seat or not legal:
            raise ValueError(f"seat {seat} is not the one to act in this state")
        if len(legal) == 1:
            return legal[0]
        if self.rollout == "guided":
            return self._guided(state, seat, legal)
        root = _Node(-1)
        rng = self.rng
        c = self.exploration
        for _ in range(self.simulations):
            d = state.resample_hidden(seat, rng)
            node = root
            path = [root]
            while not d.is_terminal():
                acts = d.legal_actions()
                player = d.current_player()
                untried = [a for a in acts if a not in node.children]
                if untried:
                    a = self._expand(d, player, untried, rng)
                    for b in acts:
                        child = node.children.get(b)
                        if child is not None:
                            child.avail += 1
                    child = _Node(player, len(node.children))
                    child.avail = 1
                    node.children[a] = child
                    d.apply_action(a)
                    path.append(child)
                    break
                best, best_a = -math.inf, acts[0]
                for b in acts:
                    ch = node.children[b]
                    ch.avail += 1
                    u = ch.value / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if u > best:
                        best, best_a = u, b
                node = node.children[best_a]
                d.apply_action(best_a)
                path.append(node)
            values = self._finish(d, rng)
            for n in path[1:]:
                n.visits += 1
                n.value += values[n.player]
        return max(legal, key=lambda a: self._rank(root, a))

    def _guided(self, state: State, seat: int, legal: list[int]) -> int:
        """The paired root search of the ``guided`` variant (module docstring)."""
        rng = self.rng
        # The heuristic reads only this seat's own observation, which re-dealing leaves alone.
        root_seed = rng.randrange(2**63)
        self._bot(seat).seed(root_seed)
        base = self._policy_action(state, seat)
        others = [a for a in legal if a != base]
        if len(others) >= self.width:
            others = rng.sample(others, self.width - 1)
        cands = [base, *others]
        rounds = max(2, self.simulations // len(cands))
        values = [[0.0] * rounds for _ in cands]
        for r in range(rounds):
            deal = state.resample_hidden(seat, rng)
            bot_seed = rng.randrange(2**63)
            for i, a in enumerate(cands):
                d = deal.clone()
                d.apply_action(a)
                for p, bot in enumerate(self._bots_for(self.game.num_players)):
                    bot.seed(bot_seed + p)
                while not d.is_terminal():
                    d.apply_action(self._policy_action(d, d.current_player()))
                values[i][r] = self._values(d)[seat]
        best, best_gain = 0, 0.0
        self.last_gains = {base: 0.0}
        self.last_values = {a: sum(v) / rounds for a, v in zip(cands, values, strict=True)}
        for i in range(1, len(cands)):
            gains = [v - b for v, b in zip(values[i], values[0], strict=True)]
            mean = sum(gains) / rounds
            self.last_gains[cands[i]] = mean
            var = sum((g - mean) ** 2 for g in gains) / (rounds - 1)
            if mean > self.switch_z * math.sqrt(var / rounds) and mean > best_gain:
                best, best_gain = i, mean
        return cands[best]

    def _bots_for(self, n: int) -> list[Any]:
        return [self._bot(p) for p in range(n)]

    @staticmethod
    def _rank(root: _Node, a: int) -> tuple[int, float, int]:
        """The order of root children: most visits first.

        A tie (a small budget visits every child once) goes to the higher mean value, then to the
        child expanded first (with heuristic rollouts: the heuristic's move).
        """
        child = root.children.get(a)
        if child is None:
            return (-1, 0.0, 0)
        return (child.visits, child.value / child.visits, -child.order)

    def _expand(self, d: State, player: int, untried: list[int], rng: random.Random) -> int:
        """The action a new child is made for: the rollout policy's own choice while untried.

        With heuristic rollouts the first child of a node is the heuristic's move, so every
        simulation below a fresh node follows the heuristic instead of starting with a random
        move, and the search compares alternatives against the heuristic's line.
        """
        if self.rollout == "heuristic":
            a = self._policy_action(d, player)
            if a in untried:
                return a
        return untried[rng.randrange(len(untried))]

    def _policy_action(self, d: State, p: int) -> int:
        observer = self.observer
        assert observer is not None
        obs = {"observation": observer.encode(d, p), "action_mask": observer.action_mask(d, p)}
        return int(self._bot(p).act(obs))

    def _finish(self, d: State, rng: random.Random) -> list[float]:
        if self.rollout == "random":
            while not d.is_terminal():
                acts = d.legal_actions()
                d.apply_action(acts[rng.randrange(len(acts))])
        else:
            while not d.is_terminal():
                d.apply_action(self._policy_action(d, d.current_player()))
        return self._values(d)

    def _bot(self, seat: int) -> Any:
        bot = self._bots.get(seat)
        if bot is None:
            from tabletop_gym.agents.heuristic import heuristic_for

            assert self.observer is not None
            bot = heuristic_for(self.game, self.observer,
                                np.random.default_rng(self.rng.randrange(2**63)))
            self._bots[seat] = bot
        return bot

    def _values(self, d: State) -> list[float]:
        """Each seat's value of a finished game in [0, 1]: win share and score margin."""
        scores = [float(x) for x in d.scores()]
        n = len(scores)
        lo, hi = self.game.score_bounds
        span = max(hi - lo, 1.0)
        if n == 1:
            return [min(1.0, max(0.0, (scores[0] - lo) / span))]
        winners = d.winners()
        w = self.score_weight
        out = []
        for p in range(n):
            win = 1.0 / len(winners) if p in winners else 0.0
            best_other = max(scores[q] for q in range(n) if q != p)
            margin = 0.5 + 0.5 * math.tanh((scores[p] - best_other) / self.margin_scale)
            out.append((1 - w) * win + w * margin)
        return out


if TYPE_CHECKING:
    # The search agent is handed the engine state (tabletop_gym.agents.base.StateAgent).
    from tabletop_gym.agents.base import SeedableAgent, StateAgent

    _state: type[StateAgent] = ISMCTSAgent
    _seed: type[SeedableAgent] = ISMCTSAgent
