"""A real ``gymnasium.Env`` over one seat of any of our AEC envs, against opponents.

The wrapper steps the opponents itself: after the learner acts, every other seat acts with its own
policy on its own observation until it is the learner's turn again or the game ends. The reward
returned is the **learner's own** reward accumulated over that whole stretch, so a loss reaches the
learner as its -1 even when the game ends on an opponent's move (PettingZoo's SB3 tutorial never
delivers it). Opponents see only their own observations. What an opponent offers is read once
from the protocols it implements (:func:`tabletop_gym.agents.base.capabilities`): an agent gets
its observation dict, or, if it is a ``PartsAgent`` (``act_on(vector, legal)``, the Rapa Nui
heuristic), the dict's parts (its ``observation`` vector and the legal ids its mask sets); one
with ``forced_moves_blind = True`` plays a move that is the only legal one without being asked,
and a named bot with ``seed_resets = True`` is built once and reseeded at each reset. An object
with only ``act`` (or a function) is handed its observation dict at every decision.

For ``MaskablePPO`` the wrapper has ``action_masks()`` (Gymnasium's wrappers do not forward
attributes: through ``gymnasium.make`` reach it with ``env.get_wrapper_attr("action_masks")()``,
``env.unwrapped.action_masks()`` or sb3-contrib's ``get_action_masks(env)``, and through vector
envs with ``env_method``); the mask is also in ``info["action_mask"]``. The first illegal action
of an env instance warns once (:class:`IllegalActionWarning`): an unmasked agent otherwise sees
only one-step episodes ending at -1. The observation is the flat ``Box`` vector by default, or
the PettingZoo dict with ``observation_type="dict"``.

A faulty opponent (an action that is not an integer, outside the action space or illegal) loses:
the game ends as in the AEC env's ``illegal_action="terminate"`` (the opponent -1, everyone else,
the learner included, 0), a warning names the opponent, and ``info["illegal_action"]`` says what
it did. With ``illegal_action="raise"`` the error is raised instead; either way the episode is
over and the next ``step()`` asks for a reset. If it happens before the learner's first decision,
``reset()`` raises a ``RuntimeError`` naming the opponent.

Example:
    >>> import gymnasium, tabletop_gym
    >>> env = gymnasium.make("RapaNui-v0", opponents="random")
    >>> obs, info = env.reset(seed=0)
    >>> action = int(info["action_mask"].argmax())  # the first legal action
    >>> obs, reward, terminated, truncated, info = env.step(action)
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from tabletop_gym.agents.base import (
    Agent,
    Capabilities,
    PartsAgent,
    SeedableAgent,
    capabilities,
    choose_action,
)
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.core.aec import (
    ILLEGAL_REWARD,
    TabletopAECEnv,
    as_action,
    as_seed,
    env_argument_names,
    reset_options,
)
from tabletop_gym.core.game import IllegalActionError, as_int, check_names, shown
from tabletop_gym.core.render import (
    RENDER_MODES,
    HumanWindow,
    check_render_view,
    render_frame,
    view_seat,
)

SEAT_MODES = ("fixed", "rotate", "random")


class IllegalActionWarning(UserWarning):
    """The learner took an illegal action (warned once per env instance)."""


class SingleAgentEnv(gymnasium.Env):
    """One seat of a multi-player AEC env as a single-agent Gymnasium env.

    Args:
        aec_env: A raw :class:`TabletopAECEnv` (not order-enforced), e.g.
            ``rapa_nui_v0.raw_env(num_players=3)``.
        opponents: One spec for every other seat, or a list with one spec per other seat in
            seat order: ``"random"``, ``"heuristic"``, an Agent, a callable
            ``f(observation_dict) -> int``, or a trained SB3 model.
        learner_seat: The learner's seat (with ``seat_mode="fixed"``) or the first seat.
        seat_mode: ``"fixed"``; ``"rotate"`` (seat = (learner_seat + e) mod n, where e is the
            seed of a seeded reset and goes up by one at each unseeded reset);
            ``"random"`` (drawn from the env's generator at each reset).
        observation_type: ``"flat"`` (the float32 vector) or ``"dict"`` (with the mask).
        illegal_action: ``"terminate"`` (reward -1, episode ends, ``info["illegal_action"]``)
            or ``"raise"``.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        render_view: ``"public"`` (default for pictures), a seat, or ``"learner"`` (the
            learner's view; the default for ``ansi``).
    """

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        aec_env: TabletopAECEnv,
        opponents: Any = "random",
        learner_seat: int = 0,
        seat_mode: str = "fixed",
        observation_type: str = "flat",
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        render_view: str | int | None = None,
    ):
        if not isinstance(aec_env, TabletopAECEnv):
            raise TypeError("aec_env must be a raw tabletop AEC env (e.g. rapa_nui_v0.raw_env())")
        if seat_mode not in SEAT_MODES:
            raise ValueError(f"seat_mode={seat_mode!r} is not allowed; choose one of {SEAT_MODES}")
        if observation_type not in ("flat", "dict"):
            raise ValueError(f"observation_type={observation_type!r}; choose 'flat' or 'dict'")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action={illegal_action!r}; choose 'terminate' or 'raise'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}; choose one of "
                             f"{self.metadata['render_modes']} or None")
        n = aec_env.game.num_players
        seat = as_int(learner_seat)
        if seat is None or not 0 <= seat < n:
            raise ValueError(f"learner_seat must be an int in 0..{n - 1}, got {learner_seat!r}")
        learner_seat = seat
        check_render_view(render_view, n, ("learner",))
        self.render_view = render_view
        human = render_mode == "human"
        self._window = HumanWindow(type(aec_env).metadata["name"]) if human else None
        self.aec = aec_env
        # The inner env always raises: the wrapper applies its own policy to the learner only.
        self.aec.illegal_action = "raise"
        self.learner_seat0 = learner_seat
        self.seat_mode = seat_mode
        self.observation_type = observation_type
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.num_players = n
        self._warned_illegal = False
        self.set_opponents(opponents)
        agent0 = self.aec.possible_agents[0]
        inner_space = cast(spaces.Dict, self.aec.observation_space(agent0))
        self.observation_space = (
            inner_space["observation"] if observation_type == "flat" else inner_space
        )
        self.action_space: spaces.Discrete = spaces.Discrete(self.aec.game.num_distinct_actions)
        self._zero_mask = np.zeros(self.action_space.n, dtype=np.int8)
        self._zero_mask.flags.writeable = False
        self._episode = -1
        self.learner_seat = learner_seat
        self._learner = self.aec.possible_agents[learner_seat]
        self._opponents: dict[str, Agent] = {}
        self._on_parts: dict[str, Any] = {}
        self._blind: set[str] = set()
        self._n_actions = int(self.action_space.n)
        self._done = True

    # --- opponents ----------------------------------------------------------------------------

    def _normalise_specs(self, opponents: Any) -> list[Any]:
        k = self.num_players - 1
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            return [opponents] * k
        specs = list(opponents)
        if len(specs) != k:
            raise ValueError(f"give one opponent for every other seat ({k}), got {len(specs)}")
        return specs

    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponents from the next reset on (reachable through ``env_method``).

        A path (``str`` or ``os.PathLike``) ending in ``.zip`` is loaded as a ``MaskablePPO``
        checkpoint (self-play snapshots are passed this way to vector envs in other processes);
        ``gymnasium.make(..., opponents=...)`` accepts the same specs.
        """
        specs = self._normalise_specs(opponents)
        self._opponent_specs = [self._load_checkpoint(s) for s in specs]
        # Bots built from the named specs (by spec index) that a reseed makes as good as new.
        self._kept_bots: dict[int, Any] = {}
        # What each spec's agent offers (by spec index), read once: a spec gives the same kind
        # of agent at every reset.
        self._capabilities: dict[int, Capabilities] = {}

    @staticmethod
    def _load_checkpoint(spec: Any) -> Any:
        if isinstance(spec, str | os.PathLike) and os.fspath(spec).endswith(".zip"):
            from sb3_contrib import MaskablePPO

            return MaskablePPO.load(os.fspath(spec), device="cpu")
        return spec

    def _build_opponents(self) -> None:
        others = [s for s in range(self.num_players) if s != self.learner_seat]
        self._opponents = {}
        self._on_parts = {}
        self._blind = set()
        for j, (spec, seat) in enumerate(zip(self._opponent_specs, others, strict=True)):
            child = np.random.default_rng(int(self.np_random.integers(0, 2**63 - 1)))
            named = isinstance(spec, str)
            # A named bot whose seed() makes it as good as new (seed_resets) is built once and
            # reseeded at every reset, as a new one would be.
            agent = self._kept_bots.get(j) if named else None
            if agent is None:
                agent = make_agent(spec, self.aec.game, self.aec.observer, child)
            caps = self._capabilities.get(j)
            if caps is None:
                caps = self._capabilities[j] = capabilities(agent)
            if named and caps.seed_resets:
                self._kept_bots[j] = agent
            if named and caps.seedable:
                cast(SeedableAgent, agent).seed(int(child.integers(0, 2**63 - 1)))
            name = self.aec.possible_agents[seat]
            self._opponents[name] = agent
            # Opponents that decide from the parts of their observation (the vector and the
            # legal ids) are handed those, without the dict and the mask copy; those that play a
            # forced move without reading anything are not observed at all then.
            if caps.decides_on == "parts":
                self._on_parts[name] = cast(PartsAgent, agent).act_on
                if caps.forced_moves_blind:
                    self._blind.add(name)

    # --- gymnasium API ------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal a new game, let the opponents act until the learner's first turn.

        Raises:
            TypeError, ValueError, StateFormatError: On bad ``options`` (only ``{"state": ...}``
                is an option here: seats follow ``seat_mode``); nothing changes then.
            RuntimeError: When the game ends before the learner's first decision (a finished
                start state, or a faulty opponent).
        """
        seed = as_seed(seed)
        # Seats are the wrapper's business (seat_mode), so the only option is a start state.
        options = reset_options(self.aec.game, options, allowed=("state",))
        super().reset(seed=seed)
        # Gymnasium's seeding contract: the same seed gives the same episode, seat included; a
        # seeded reset puts the rotation at the seed, so seeds 0, 1, 2, ... rotate too.
        self._episode = seed if seed is not None else self._episode + 1
        n = self.num_players
        if self.seat_mode == "fixed":
            self.learner_seat = self.learner_seat0
        elif self.seat_mode == "rotate":
            self.learner_seat = (self.learner_seat0 + self._episode) % n
        else:
            self.learner_seat = int(self.np_random.integers(n))
        self._learner = self.aec.possible_agents[self.learner_seat]
        self._build_opponents()
        # A seeded reset seeds the game from this env's generator; an unseeded one continues the
        # game generator's own stream (as deterministic, and without building a new generator).
        game_seed = None if seed is None and self._episode > 0 else int(
            self.np_random.integers(0, 2**63 - 1)
        )
        self.aec.reset(seed=game_seed, options=options)
        self._done = False
        reward = self._play_opponents()
        if self._done:
            fault = self.aec.infos.get(self._learner, {}).get("illegal_action")
            if fault:
                raise RuntimeError(
                    f"opponent {fault['agent']} played an illegal action before the learner's "
                    f"first decision, which ended the game: {fault['message']}"
                )
            raise RuntimeError("the game ended before the learner's first decision")
        del reward  # terminal rewards only; nothing can accrue before the first decision
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The learner acts; opponents answer; returns the learner's own accumulated reward."""
        if self._done:
            raise RuntimeError("the episode is over; call reset()")
        aec = self.aec
        try:
            aec.step(action)
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            self._warn_illegal(err)
            self._done = True
            info = self._info()
            info["illegal_action"] = {"action": err.action, "phase": err.phase,
                                      "legal_actions": err.legal, "message": str(err)}
            return self._observation(), ILLEGAL_REWARD, True, False, info
        learner = self._learner
        reward = float(aec.rewards.get(learner, 0.0))
        if not aec.terminations.get(learner, True) and aec.agent_selection != learner:
            # Opponents to answer (never in a solo game: the learner is always next there).
            reward += self._play_opponents()
        terminated = bool(aec.terminations.get(learner, True))
        if terminated:
            self._done = True
        return self._observation(), reward, terminated, False, self._info()

    def _warn_illegal(self, err: IllegalActionError) -> None:
        if self._warned_illegal:
            return
        self._warned_illegal = True
        warnings.warn(
            f"illegal action {err.action} in phase {err.phase!r}: the episode ends with reward "
            f"{ILLEGAL_REWARD:g}. Legal actions were {err.legal}. Choose actions from the mask: "
            "info['action_mask'] or env.action_masks() (MaskablePPO reads action_masks(); "
            "through gymnasium.make use env.get_wrapper_attr('action_masks')()). "
            "This warning is shown once per env.",
            IllegalActionWarning,
            stacklevel=3,
        )

    def _is_over(self) -> bool:
        return bool(self.aec.terminations.get(self._learner, True))

    def _play_opponents(self) -> float:
        """Step opponents until the learner acts or the game ends; the learner's reward sum."""
        aec = self.aec
        reward = 0.0
        n = self._n_actions
        learner = self._learner
        terminations = aec.terminations
        while not terminations.get(learner, True) and aec.agent_selection != learner:
            name = aec.agent_selection
            self._done = True  # until the opponent's move is in: an exception ends the episode
            raw = self._opponent_action(name)
            try:
                # A Python int in range is what as_action would return; anything else is checked
                # (and named) there.
                aec.step(raw if type(raw) is int and 0 <= raw < n
                         else as_action(raw, n, f"opponent {name}"))
            except ValueError as exc:  # outside the action space, or illegal
                self._opponent_faulted(name, raw, exc)
            self._done = False
            reward += float(aec.rewards.get(learner, 0.0))
            terminations = aec.terminations  # the env may rebind its dicts
        if self._is_over():
            self._done = True
        return reward

    def _opponent_action(self, name: str) -> Any:
        """What opponent ``name``, the agent to act, plays on its own observation."""
        act_on = self._on_parts.get(name)
        if act_on is None:
            return choose_action(self._opponents[name], self.aec, name)
        legal = self.aec.acting_legal()
        if len(legal) == 1 and name in self._blind:
            return legal[0]
        return act_on(self.aec.acting_observation(), legal)

    def _opponent_faulted(self, name: str, action: Any, exc: ValueError) -> None:
        """End the game as lost by opponent ``name`` (raise under ``illegal_action="raise"``)."""
        state = self.aec.game_state
        seat = self.aec.seat_of(name)
        who = f"opponent {name} (seat {seat}, {type(self._opponents[name]).__name__})"
        reason = who if isinstance(exc, IllegalActionError) else f"{who}: {exc}"
        err = IllegalActionError(action, state.phase(), state.legal_actions(seat), reason)
        if self.illegal_action == "raise":
            raise err from None
        warnings.warn(f"{who} played {shown(action)}, which is not a legal action; it loses and "
                      "the game ends", stacklevel=4)
        with warnings.catch_warnings():
            # The AEC env's own warning would repeat the one above without naming the opponent.
            warnings.simplefilter("ignore")
            self.aec._terminate_illegal(name, err)

    def _observation(self) -> Any:
        if self.observation_type == "flat":
            aec = self.aec
            return aec.observer.encode(aec._require_state(), self.learner_seat)
        return self.aec.observe(self._learner)

    def _info(self) -> dict[str, Any]:
        inner = self.aec.infos.get(self._learner, {})
        info = {"action_mask": self._mask_int8(), "seat": self.learner_seat}
        keys: tuple[str, ...] = ("scores", "score_breakdown", "winners", "phase", "illegal_action")
        if self.aec.info_mode == "stable":
            keys = tuple(inner)
        for key in keys:
            if key in inner:
                info[key] = inner[key]
        return info

    def _mask_int8(self) -> np.ndarray:
        # The AEC env computed the acting agent's mask once for this position; copy it.
        if not self._done and self.aec.agent_selection == self._learner:
            return self.aec.acting_mask()
        return np.zeros(self.action_space.n, dtype=np.int8)

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the game is over)."""
        # One conversion of the env's mask for this position, no intermediate copy.
        return self.action_mask_view().astype(bool)

    def action_mask_view(self) -> np.ndarray:
        """The learner's int8 mask as a read-only array (all zeros once the game is over).

        For callers that convert or copy it at once (a vector env writing a batch of masks);
        :meth:`action_masks` and ``info["action_mask"]`` hand out arrays of their own.
        """
        if not self._done and self.aec.agent_selection == self._learner:
            return self.aec.acting_mask_view()
        return self._zero_mask

    def render(self) -> str | np.ndarray | None:
        """The table in ``render_view`` (``human``: shown in a window, returns ``None``)."""
        if self.render_mode is None:
            return None
        seat = view_seat(self.render_view, self.render_mode, self.learner_seat)
        cls = type(self.aec)
        return render_frame(cls.renderer, cls.painter, self.aec.game_state, seat,
                            self.render_mode, self._window)

    def close(self) -> None:
        """Close the ``human`` window, if one is open."""
        if self._window is not None:
            self._window.close()

    def record(self) -> Any:
        """The game record of the current episode (replays exactly)."""
        return self.aec.record()


WRAPPER_KWARGS = (
    "opponents", "learner_seat", "seat_mode", "observation_type", "illegal_action", "render_mode",
    "render_view",
)
"""Keyword arguments that belong to :class:`SingleAgentEnv`; all others configure the game."""


def make_single_agent(
    raw_env_factory: type[TabletopAECEnv], **kwargs: Any
) -> SingleAgentEnv:
    """Build a :class:`SingleAgentEnv` from a raw AEC env factory.

    Args:
        raw_env_factory: E.g. ``rapa_nui_v0.raw_env``.
        **kwargs: The wrapper's arguments (:data:`WRAPPER_KWARGS`) and the game's config.

    Raises:
        UnknownArgumentError: A ``TypeError`` naming an unknown keyword and the closest valid one.
    """
    check_names(kwargs, [*WRAPPER_KWARGS, *env_argument_names(raw_env_factory)],
                getattr(raw_env_factory, "__name__", "the env"))
    wrapper = {k: kwargs.pop(k) for k in WRAPPER_KWARGS if k in kwargs}
    return SingleAgentEnv(raw_env_factory(**kwargs), **wrapper)


def make_registered(game: str, **kwargs: Any) -> SingleAgentEnv:
    """The single-agent view of a registered game with its registered defaults.

    The Gymnasium entry point of every game's configurable id (``gymnasium.make("Positano-v0")``
    calls it with ``game="positano"``).

    Args:
        game: A game name, env name or Gymnasium id (see :mod:`tabletop_gym.registry`).
        **kwargs: The wrapper's arguments and the game's config; they override the defaults.
    """
    from tabletop_gym.registry import game_spec

    spec = game_spec(game)
    return make_single_agent(spec.envs().raw_env, **{**spec.single_agent_defaults, **kwargs})
