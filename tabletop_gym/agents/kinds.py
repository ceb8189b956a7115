"""How agents are named, and the factory that makes one from its name.

An agent spec is a string whose first word (up to the first ``:`` or ``?``) names its kind; each
kind is one :class:`AgentKind` in a table (:func:`register_kind`, :func:`agent_kinds`), read by
the factory (:func:`make_agent`), the early checks (:func:`check_spec`, :func:`require_agent`)
and the names in tables (:func:`agent_name`). The kinds of the package:

* ``"random"``: a uniformly random legal action;
* ``"heuristic"``, ``"heuristic:<variant>"``: the game's rule-based bot or one of its named
  variants (``tabletop_gym.agents.heuristic``);
* ``"ismcts"``, ``"ismcts:200"``, ``"ismcts:200:heuristic"``: information-set MCTS with that
  many simulations per move and random (default) or heuristic rollouts
  (``tabletop_gym.agents.ismcts``); it is handed the engine state and determinizes it before
  looking, so it too decides on its own information only;
* ``"search:<policy>?worlds=K"``: determinised averaging over ``K`` worlds drawn from the seat's
  information, every candidate move continued by a policy network in the batched JAX engine
  (``tabletop_gym.jax.search``; needs the ``jax`` extra); it too is handed the engine state;
  ``"search:best"`` is the strongest settings measured for the game and table size;
* ``"ppo"``: the trained MaskablePPO checkpoint shipped for the game and player count
  (``tabletop_gym/agents/checkpoints/``; loading it needs the ``train`` extra);
* ``"jax-ppo"``: the shipped policy of the ``jax-ppo`` recipe, played greedily with numpy alone;
* ``"llm:MODEL@BASE_URL"`` (options as a query string, ``?temperature=0.2&timeout=20``): a
  language model behind an OpenAI-compatible server, playing from its seat's text view
  (``tabletop_gym.agents.llm``; needs the ``llm`` extra);
* ``"jax:<path>"``: a policy trained by ``tabletop_gym.jax.train`` and saved as ``.npz``, played
  greedily with numpy alone (``tabletop_gym.agents.jax_policy``; JAX is not needed).

Besides a spec, :func:`make_agent` takes an :class:`~tabletop_gym.agents.base.Agent` object,
any callable ``f(observation_dict) -> int``, or a loaded Stable-Baselines3 model (anything with
``predict(obs, action_masks=..., ...)``), which plays greedily with its mask.

A kind implemented above the agents' floor (the ``search`` agent runs in the batched JAX engine)
is registered by ``"module:attribute"`` strings imported on first use, as the game registry does,
so this package never imports the floors above it.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_gym.agents.base import (
    Agent,
    CallableAgent,
    HintedModelAgent,
    ModelAgent,
    RandomAgent,
    checkpoint_path,
    game_name,
    jax_checkpoint_path,
    reference_size,
)
from tabletop_gym.agents.heuristic import heuristic_for
from tabletop_gym.core.game import Game
from tabletop_gym.core.observer import Observer
from tabletop_gym.extras import EXTRAS, PPO_MODULES, require
from tabletop_gym.registry import resolve

__all__ = ["AgentKind", "agent_extra", "agent_kind", "agent_kinds", "agent_name", "check_spec",
           "is_kind", "load_checkpoint", "make_agent", "model_agent", "register_kind",
           "require_agent"]

Builder = Callable[[Game, Observer, np.random.Generator | None, str], Any]
"""``build(game, observer, rng, spec)``: the agent of ``spec`` for ``game``."""


@dataclasses.dataclass(frozen=True)
class AgentKind:
    """One kind of agent, named by the first word of its specs.

    Attributes:
        name: The first word of its specs (up to the first ``:`` or ``?``): ``"ismcts"``.
        usage: How its specs are written, as an unknown spec's error lists it.
        what: What it is, for people (a missing extra's message names it).
        build: ``build(game, observer, rng, spec)``, or its ``"module:attribute"`` imported on
            first use (for a kind implemented above the agents' floor).
        separators: The characters that may follow :attr:`name` in a spec (``""``: the name
            alone).
        bare: Whether the name alone is a spec.
        check: Reads a spec without a game and raises ``ValueError`` naming what is wrong
            (a function or a ``"module:attribute"``); ``None``: nothing to check before a game.
        label: The name a spec goes by in tables (a function of the spec); ``None``: the spec.
        extra: The extra of ``pyproject.toml`` it needs; ``None``: the core install.
        modules: The modules of :attr:`extra` it imports (default: all of the extra's).
    """

    name: str
    usage: str
    what: str
    build: Builder | str
    separators: str = ""
    bare: bool = True
    check: Callable[[str], Any] | str | None = None
    label: Callable[[str], str] | None = None
    extra: str | None = None
    modules: tuple[str, ...] | None = None

    def accepts(self, spec: str) -> bool:
        """Whether ``spec`` is one of this kind's (its name alone, or followed by a separator)."""
        if not spec.startswith(self.name):
            return False
        rest = spec[len(self.name):]
        return self.bare if not rest else rest[0] in self.separators

    def needs(self) -> tuple[str, tuple[str, ...]] | None:
        """The extra it needs and the modules of it that it imports, or ``None``."""
        if self.extra is None:
            return None
        return self.extra, self.modules if self.modules is not None else EXTRAS[self.extra]


_KINDS: dict[str, AgentKind] = {}


def register_kind(kind: AgentKind) -> AgentKind:
    """Make ``kind`` known to :func:`make_agent` and the checks.

    Raises:
        ValueError: When its name is taken.
    """
    if kind.name in _KINDS:
        raise ValueError(f"cannot register agent kind {kind.name!r}: it is registered already")
    _KINDS[kind.name] = kind
    return kind


def agent_kinds() -> tuple[AgentKind, ...]:
    """Every registered kind, in registration order."""
    return tuple(_KINDS.values())


def _word(spec: str) -> str:
    return spec.replace("?", ":").partition(":")[0]


def agent_kind(spec: str) -> AgentKind | None:
    """The kind whose specs ``spec`` is one of, or ``None``."""
    kind = _KINDS.get(_word(spec))
    return kind if kind is not None and kind.accepts(spec) else None


def is_kind(spec: str, name: str) -> bool:
    """Whether ``spec`` is one of the specs of the kind called ``name`` (``"search"``, say)."""
    kind = agent_kind(spec)
    return kind is not None and kind.name == name


def _resolve(ref: Callable[..., Any] | str) -> Callable[..., Any]:
    if isinstance(ref, str):
        found: Callable[..., Any] = resolve(ref)  # the registry's "module:attribute" loader
        return found
    return ref


def _unknown(spec: str) -> ValueError:
    word = _word(spec)
    if word in _KINDS:
        hint = f" (write {_KINDS[word].usage!r})"
    else:
        close = difflib.get_close_matches(word, list(_KINDS), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
    usages = ", ".join(f"'{k.usage}'" for k in _KINDS.values())
    return ValueError(f"unknown opponent {spec!r}{hint}; use {usages}, an Agent, a callable or a "
                      "trained model")


def make_agent(
    spec: Any, game: Game, observer: Observer, rng: np.random.Generator | None = None
) -> Agent:
    """Turn an agent spec (a kind's name, Agent, callable or model) into an :class:`Agent`.

    Args:
        spec: A spec of a registered kind (``"random"``, ``"heuristic"``, ``"jax:<path>"``, ...),
            an Agent, a callable or an SB3 model.
        game: The game the agent plays (a heuristic reads the config).
        observer: The observer whose layout the agent's observations follow.
        rng: Generator for the agent's own randomness.

    Raises:
        ValueError: On an unknown name or an object that is none of the above.
        MissingExtraError: When the kind's extra is not installed.
    """
    if isinstance(spec, str):
        kind = agent_kind(spec)
        if kind is None:
            raise _unknown(spec)
        require_agent(spec)
        agent: Agent = _resolve(kind.build)(game, observer, rng, spec)
        return agent
    if hasattr(spec, "predict"):
        return model_agent(spec, game, observer, rng)
    if isinstance(spec, Agent):
        return spec
    if callable(spec):
        return CallableAgent(spec)
    raise ValueError(f"cannot use {spec!r} as an opponent; use 'random', 'heuristic', an Agent, "
                     "a callable or a trained model")


def agent_name(spec: Any) -> str:
    """The name an agent spec goes by in tables and ratings.

    A string is its own name, unless its kind labels it (an ``llm:`` spec with ``name=...``
    among its options goes by that name); an object goes by its ``name`` attribute, else its
    class name.

    Raises:
        ValueError: For a malformed spec of a kind that labels its specs.
    """
    if isinstance(spec, str):
        kind = agent_kind(spec)
        return spec if kind is None or kind.label is None else kind.label(spec)
    return str(getattr(spec, "name", type(spec).__name__))


def check_spec(spec: Any) -> None:
    """Reject a malformed spec of a registered kind before any game is played.

    A league checks them all. What needs the game (a heuristic's variant, a checkpoint's
    shape) is checked when the agent is made.

    Raises:
        ValueError: Naming what is wrong.
    """
    kind = agent_kind(spec) if isinstance(spec, str) else None
    if kind is not None and kind.check is not None:
        if isinstance(kind.check, str):
            require_agent(spec)  # its module is above the agents' floor and imports the extra
        _resolve(kind.check)(spec)


def _needing(spec: str) -> AgentKind | None:
    # A .zip path is a MaskablePPO checkpoint that the commands load themselves: as ppo's.
    return _KINDS["ppo"] if spec.endswith(".zip") else agent_kind(spec)


def agent_extra(spec: Any) -> tuple[str, tuple[str, ...]] | None:
    """The extra (and its modules) that the agent spec ``spec`` needs to play, or ``None``.

    A registered kind says its own (:attr:`AgentKind.extra`); a ``.zip`` path, a MaskablePPO
    checkpoint, needs what ``ppo`` needs.
    """
    kind = _needing(spec) if isinstance(spec, str) else None
    return None if kind is None else kind.needs()


def require_agent(spec: Any) -> None:
    """Raise :class:`~tabletop_gym.extras.MissingExtraError` when ``spec`` needs a missing extra.

    The message names the agent, what it is and the pip command that installs the extra.
    """
    kind = _needing(spec) if isinstance(spec, str) else None
    needs = None if kind is None else kind.needs()
    if kind is not None and needs is not None:
        require(needs[0], f"the agent {spec!r} ({kind.what})", needs[1])


def model_agent(model: Any, game: Game, observer: Observer,
                rng: np.random.Generator | None = None) -> ModelAgent:
    """A :class:`ModelAgent`, or a :class:`HintedModelAgent` for a policy that reads the hint."""
    if getattr(getattr(model, "policy", None), "heuristic_hint", False):
        return HintedModelAgent(model, heuristic_for(game, observer, rng))
    return ModelAgent(model)


@functools.lru_cache(maxsize=8)
def _load(path: str) -> Any:
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu")


def load_checkpoint(game: Game, observer: Observer) -> Any:
    """The shipped MaskablePPO model for ``game`` (loaded once, needs the ``train`` extra).

    Raises:
        ValueError: When none is shipped, or its observations do not fit ``observer``'s layout.
        MissingExtraError: Without the ``train`` extra.
    """
    require_agent("ppo")
    model = _load(str(checkpoint_path(game)))
    want = tuple(model.observation_space.shape)
    hint = int(model.action_space.n) if getattr(model.policy, "heuristic_hint", False) else 0
    size = observer.size + hint
    if want != (size,):
        given = f"({observer.size},)" + (f" plus the heuristic's move ({hint} entries)"
                                         if hint else "")
        raise ValueError(f"the shipped {game.name} checkpoint reads observations of shape {want}, "
                         f"this game's observer gives {given}: the config differs "
                         "from the one it was trained on")
    return model


# --- the kinds of the package --------------------------------------------------------------------


def _random(game: Game, observer: Observer, rng: np.random.Generator | None, spec: str) -> Agent:
    return RandomAgent(rng)


def _heuristic(game: Game, observer: Observer, rng: np.random.Generator | None,
               spec: str) -> Agent:
    return heuristic_for(game, observer, rng, spec.partition(":")[2] or None)


def _ismcts(game: Game, observer: Observer, rng: np.random.Generator | None, spec: str) -> Agent:
    from tabletop_gym.agents.ismcts import ISMCTSAgent, parse_spec

    sims, rollout = parse_spec(spec)
    return ISMCTSAgent(game, observer, rng, simulations=sims, rollout=rollout)


def _check_ismcts(spec: str) -> None:
    from tabletop_gym.agents.ismcts import parse_spec

    parse_spec(spec)


def _ppo(game: Game, observer: Observer, rng: np.random.Generator | None, spec: str) -> Agent:
    return model_agent(load_checkpoint(game, observer), game, observer, rng)


def _jax(game: Game, observer: Observer, rng: np.random.Generator | None, spec: str) -> Agent:
    from tabletop_gym.agents.jax_policy import JaxPolicyAgent

    name = game_name(game)
    shipped = spec == "jax-ppo"
    path = str(jax_checkpoint_path(name, game.num_players)) if shipped else spec[len("jax:"):]
    agent = JaxPolicyAgent(path, game_name=name, num_players=game.num_players,
                           observation_size=reference_size(observer))
    if shipped:
        agent.name = "jax-ppo"
    return agent


def _llm(game: Game, observer: Observer, rng: np.random.Generator | None, spec: str) -> Agent:
    from tabletop_gym.agents.llm import agent_from_spec

    return agent_from_spec(spec, game_name(game), rng)  # type: ignore[return-value]


def _check_llm(spec: str) -> None:
    from tabletop_gym.agents.llm import parse_spec

    parse_spec(spec)


def _llm_label(spec: str) -> str:
    from tabletop_gym.agents.llm import parse_spec

    return str(parse_spec(spec).get("name", spec))


# In the order an unknown spec's error lists them.
register_kind(AgentKind("random", "random", "a uniformly random legal action", _random))
register_kind(AgentKind("heuristic", "heuristic[:variant]", "the game's rule-based bot",
                        _heuristic, separators=":"))
register_kind(AgentKind("ismcts", "ismcts[:simulations[:rollout]]", "information-set MCTS",
                        _ismcts, separators=":", check=_check_ismcts))
register_kind(AgentKind("search", "search[:<policy>][?worlds=K] or search:best",
                        "determinised search in the batched JAX engine",
                        "tabletop_gym.jax.search:SearchAgent", separators=":?",
                        check="tabletop_gym.jax.search:parse_spec", extra="jax"))
register_kind(AgentKind("ppo", "ppo", "a MaskablePPO checkpoint", _ppo, extra="train",
                        modules=PPO_MODULES))
register_kind(AgentKind("jax-ppo", "jax-ppo", "the shipped jax-ppo policy", _jax))
register_kind(AgentKind("llm", "llm:MODEL@BASE_URL", "a language model", _llm, separators=":",
                        bare=False, check=_check_llm, label=_llm_label, extra="llm"))
register_kind(AgentKind("jax", "jax:<checkpoint.npz>", "a numpy policy checkpoint", _jax,
                        separators=":", bare=False))
