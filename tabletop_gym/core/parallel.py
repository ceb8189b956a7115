"""The PettingZoo parallel view of any engine.

Every live agent sends an action on every step. At a simultaneous node each player with a choice
sends its own action and the engine applies them together (nobody sees another's choice before the
reveal, because all arrive in one call). At a sequential node the agent to act sends its action
and every other agent must send the no-op, which is the only id in their mask: the game's own
``game.noop_action`` where it declares one (Positano: 191), otherwise one extra id appended to
the game's actions (``Discrete(num_distinct_actions + 1)``, the last id is the no-op). At the end
every agent is terminated together with its final reward and the agents list empties, as
``parallel_api_test`` and RLlib's ``ParallelPettingZooEnv`` expect.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from tabletop_gym.core.aec import (
    ILLEGAL_REWARD,
    TabletopEnvBase,
    as_action,
    as_seed,
    illegal_detail,
    observation_space,
    reset_options,
    terminal_infos,
)
from tabletop_gym.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    Game,
    IllegalActionError,
    State,
    shown,
)
from tabletop_gym.core.observer import Observer
from tabletop_gym.core.render import (
    RENDER_MODES,
)

_StepResult = tuple[
    dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]
]
"""What ``step`` returns: observations, rewards, terminations, truncations, infos."""


class TabletopParallelEnv(TabletopEnvBase, ParallelEnv):
    """A PettingZoo parallel env over any engine (sequential or with simultaneous nodes).

    Args:
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        illegal_action: ``"terminate"`` or ``"raise"`` (as in the AEC env).
        render_view: ``"public"`` (default for pictures), a seat, or ``"acting"`` (default for
            text: the seat to act at a sequential node, public at a simultaneous one).
        info_mode: ``"full"`` or ``"stable"`` (as in the AEC env).
        obs_dtype: ``"float32"`` (default) or an unsigned integer dtype that holds the layout
            (as in the AEC env).
        **config: The game's config switches.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES,
        "name": "tabletop_parallel",
        "render_fps": 1,
    }
    game_class: ClassVar[type[Game]]
    observer_class: ClassVar[type[Observer]]
    renderer: Callable[[State, int | None], str]
    painter: Callable[[State, int | None], np.ndarray]

    def __init__(
        self,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        render_view: str | int | None = None,
        info_mode: str = "full",
        obs_dtype: str = "float32",
        **config: Any,
    ):
        self._set_up(config, self.game_class, self.observer_class, render_mode, illegal_action,
                     render_view, info_mode, obs_dtype)
        noop = self.game.noop_action
        # A purely sequential game gets one extra id as its no-op, so the other seats always
        # have exactly one legal action (an all-zero mask would break masked policies).
        self.noop = int(noop) if noop is not None else self.game.num_distinct_actions
        self._n_actions = max(self.game.num_distinct_actions, self.noop + 1)
        obs_space = observation_space(self.observer, self._n_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._n_actions) for a in self.possible_agents}
        self._joint_log: list[list[int | None]] = []
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        # The mask of a seat that must send the no-op: copied, never rebuilt, at every step.
        self._noop_mask = np.zeros(self._n_actions, dtype=np.int8)
        self._noop_mask[self.noop] = 1
        self._zero_mask = np.zeros(self._n_actions, dtype=np.int8)
        self._acting_now: list[int] = []
        self._legal_now: dict[int, list[int]] = {}

    def _seat(self, agent: str) -> int:
        return self._seat_of[agent]

    def _acting(self) -> list[int]:
        """Seats with a real choice now."""
        state = self.state_obj
        if state is None:
            state = self._require_state()
        cur = state.current_player()
        if cur == TERMINAL:
            return []
        if cur == SIMULTANEOUS:
            return [p for p in range(self.game.num_players) if state.legal_actions(p)]
        return [cur]

    def _observe_all(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Every live agent's observation and info; the acting seats are found once here.

        All seats' observations come from one call as the rows of one fresh
        ``(num_players, size)`` array (a row per seat, handed out as a view: the array is new
        at every step, so an observation kept from an earlier step never changes, and no two
        seats share an entry). The acting seats' masks are built once from their legal actions,
        which stay here privately for ``step()`` to check actions against; every other live
        seat gets a copy of the prepared no-op mask.
        """
        state = self._require_state()
        acting = self._acting_now = self._acting()
        legal_now: dict[int, list[int]] = {}
        self._legal_now = legal_now
        rows = self.observer.encode_seats(state)
        obs, infos = {}, {}
        phase = state.phase()
        seat_of = self._seat_of
        noop = self._noop_mask if acting else self._zero_mask
        stable = self._stable is not None
        masks = self._masks
        for a in self.agents:
            s = seat_of[a]
            if s in acting:
                legal = legal_now[s] = state.legal_actions(s)
                key = tuple(legal)
                kept = masks.get(key)
                if kept is None:
                    kept = self._new_mask(key, self._n_actions)
                mask = kept.copy()
                is_acting = True
            else:
                mask = noop.copy()
                is_acting = False
            obs[a] = {"observation": rows[s], "action_mask": mask}
            if not stable:
                infos[a] = {"action_mask": mask, "is_acting": is_acting, "phase": phase}
        if self._stable is not None:
            live = {a for a in self.agents if seat_of[a] in acting}
            infos = self._stable.running(self.agents, live, phase)
        return obs, infos

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a new game; ``seed=None`` continues the env's generator stream.

        Args:
            seed: Seeds the env's generator.
            options: ``{"state": State | JSON text | dict}`` starts from a given unfinished state
                of this env's game.

        Raises:
            TypeError: When ``options`` is not a dict or names an unknown option.
            StateFormatError: On a malformed state, or one of another game or config.
            ValueError: On a finished state (the parallel API has no way to hand out its
                rewards at reset).

        Nothing changes when it raises.
        """
        seed = as_seed(seed)
        given = reset_options(self.game, options, allowed=("state",)).get("state")
        if given is not None and given.is_terminal():
            raise ValueError("options['state'] is a finished game; a parallel reset needs a "
                             "state with a decision to make")
        if seed is not None or not hasattr(self, "_np_random_gen"):
            self._np_random_gen, _ = seeding.np_random(seed)
        engine_seed = int(self._np_random_gen.integers(0, 2**63 - 1))
        if given is None:
            self._engine_seed = engine_seed
            self.state_obj = self.game.new_initial_state(random.Random(engine_seed))
        else:
            self._engine_seed = None
            self.state_obj = given
        self.agents = list(self.possible_agents)
        self._joint_log = []
        return self._observe_all()

    def step(self, actions: dict[str, int]) -> _StepResult:
        """Apply one action per live agent (the no-op for agents not to act).

        Once the game is over there are no live agents, and ``step({})`` returns five empty
        dicts and changes nothing, as PettingZoo's own parallel envs do (SuperSuit's
        ``black_death_v3`` steps once more after every agent is done).

        Raises:
            RuntimeError: Before the first reset, and for actions sent after the game ended.
            ValueError: On a missing, unknown or out-of-space action; nothing changes.
        """
        state = self._require_state()
        if not self.agents:
            if isinstance(actions, dict) and not actions:
                return {}, {}, {}, {}, {}
            raise RuntimeError(f"the game is over (no live agents), so {shown(actions)} cannot "
                               "be played: send step({}) or call reset() to play again")
        if not isinstance(actions, dict):
            raise TypeError(f"step() needs a dict of actions by agent, got {actions!r}")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"step() needs an action for every live agent; missing {missing}")
        unknown = [a for a in actions if a not in self.agents]
        if unknown:
            raise ValueError(f"{unknown} are not live agents; live agents: {self.agents}")
        actions = {a: as_action(act, self._n_actions, a) for a, act in actions.items()}
        acting = self._acting_now
        cur = state.current_player()
        seat_of = self._seat_of
        noop = self.noop
        try:
            for a in self.agents:
                if seat_of[a] not in acting and actions[a] != noop:
                    raise IllegalActionError(
                        actions[a], state.phase(), [noop],
                        f"{a} is not to act and must send the no-op {noop}",
                    )
            legal = self._legal_now
            if cur == SIMULTANEOUS:
                joint = [
                    actions[self.possible_agents[p]] if p in acting else None
                    for p in range(self.game.num_players)
                ]
                if all(a is None or a in legal[p] for p, a in enumerate(joint)):
                    state.apply_trusted_joint_action(joint)
                else:
                    state.apply_joint_action(joint)  # raises IllegalActionError
                self._joint_log.append(joint)
            else:
                act = actions[self.possible_agents[cur]]
                if act in legal[cur]:
                    state.apply_trusted_action(act)
                else:
                    state.apply_action(act)  # raises IllegalActionError
                self._joint_log.append([act])
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            return self._end_illegal(err, actions, acting)
        rewards = dict.fromkeys(self.agents, 0.0)
        terms = dict.fromkeys(self.agents, False)
        truncs = dict.fromkeys(self.agents, False)
        obs, infos = self._observe_all()
        if state.is_terminal():
            returns = state.returns()
            # Seat s is possible_agents[s] here: the parallel view does not rotate seats.
            final = terminal_infos(state, self.agents, self._seat_of, self.possible_agents,
                                   self.possible_agents, self._stable)
            if self._stable is not None:
                infos = final
            for a in self.agents:
                rewards[a] = float(returns[self._seat(a)])
                terms[a] = True
                if self._stable is not None:
                    continue
                infos[a].update(final[a])
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def _end_illegal(
        self, err: IllegalActionError, actions: dict[str, int], acting: list[int]
    ) -> _StepResult:
        state = self._require_state()
        def broke_rule(a: str) -> bool:
            s = self._seat(a)
            if s in acting:
                return int(actions[a]) not in state.legal_actions(s)
            return int(actions[a]) != self.noop

        offender = next((a for a in self.agents if broke_rule(a)), self.agents[0])
        warnings.warn(f"{offender} took an illegal action; the game ends: {err}", stacklevel=3)
        detail = illegal_detail(offender, err)
        obs, infos = self._observe_all()
        rewards = {a: (ILLEGAL_REWARD if a == offender else 0.0) for a in self.agents}
        terms = dict.fromkeys(self.agents, True)
        truncs = dict.fromkeys(self.agents, False)
        if self._stable is not None:
            infos = self._stable.illegal(self.agents, state.phase(), offender,
                                         int(actions[offender]))
        else:
            for a in self.agents:
                infos[a]["illegal_action"] = detail
        self.agents = []
        return obs, rewards, terms, truncs, infos

    def record(self) -> dict[str, Any]:
        """Config, engine seed and the joint actions of this episode.

        Privileged while the game runs: the engine seed fixes every deck and stack order.

        Raises:
            RuntimeError: Before the first reset.
            ValueError: When the episode started from a given state (it has no seed).
        """
        rec = self._seeded_record(actions=[])
        doc = rec.__dict__ | {"joint_actions": [list(j) for j in self._joint_log]}
        return doc
