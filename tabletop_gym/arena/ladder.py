"""A frozen reference ladder: fixed, versioned opponents with fixed ratings.

See docs/llm.md, "The reference ladder".

A league refits every rating whenever an agent joins, so two papers' ratings do not compare. The
ladder is fitted once (:func:`fit_ladder`, a round robin of its members) and committed
(:data:`LADDER_FILE`); a new agent is rated against it (:func:`rate_against`) by playing each
member the same seat-rotated deals and fitting its one rating with the members' ratings held
fixed. Nothing of the ladder changes when an agent is rated, so a rating made under one
:data:`LADDER_PROTOCOL` compares with any other made under it.

Protocol ``tabletop-ladder-v1``:

* game ``rapa_nui``, 2 players, default config; the members are :data:`MEMBERS` (names as
  agent specs, each pinned by the package version that shipped the file);
* a rating plays :data:`GAMES_PER_MEMBER` games against every member, deals from seed 0, seats
  rotated (``evaluate``); a win counts 1, a shared win 0.5;
* the rating is the Bradley-Terry maximum-likelihood strength on the Elo scale (400 points: 10
  to 1 odds), the members' ratings fixed, with one virtual drawn game against each member (it
  keeps the rating of an agent that wins or loses every game finite); the random agent is 0;
* its 95 % interval is the percentile bootstrap over the games, resampled within each member.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_gym.agents.kinds import agent_name, check_spec
from tabletop_gym.arena.evaluation import evaluate
from tabletop_gym.arena.league import ELO, run_league
from tabletop_gym.registry import default_game

LADDER_PROTOCOL = "tabletop-ladder-v1"
"""The version of the ladder's protocol: members, game, games, fit. A change of any makes v2."""

LADDER_FILE = pathlib.Path(__file__).resolve().parent / "ladder.json"
"""The committed ladder (its members' fixed ratings and how they were fitted)."""

GAME = default_game("ladder")
NUM_PLAYERS = 2
MEMBERS = ("random", "heuristic", "ismcts:8", "ismcts:32", "jax-ppo")
"""The ladder's members, weakest first as expected; ``random`` is the anchor (rating 0)."""

GAMES_PER_MEMBER = 100
"""Games a rated agent plays against each member under the protocol."""

PRIOR_DRAWS = 1.0
"""Virtual drawn games against each member in a rating's fit."""


def fit_ladder(games_per_pair: int, seed: int = 0, bootstrap: int = 200) -> dict[str, Any]:
    """Fit the ladder: a round robin of :data:`MEMBERS`; the document :data:`LADDER_FILE` holds.

    Args:
        games_per_pair: Games per pair of members.
        seed: First deal's seed.
        bootstrap: Bootstrap resamples for the members' intervals.
    """
    from tabletop_gym.version import __version__

    res = run_league(GAME, list(MEMBERS), games_per_pair=games_per_pair, seed=seed,
                     bootstrap=bootstrap, num_players=NUM_PLAYERS)
    anchor = res.ratings[res.agents.index("random")]
    return {
        "protocol": LADDER_PROTOCOL,
        "game": GAME,
        "num_players": NUM_PLAYERS,
        "package_version": __version__,
        "games_per_pair": games_per_pair,
        "seed": seed,
        "games_per_member": GAMES_PER_MEMBER,
        "ratings": {a: round(r - anchor, 1) for a, r in zip(res.agents, res.ratings, strict=True)},
        "rating_ci": {a: [round(lo - anchor, 1), round(hi - anchor, 1)]
                      for a, (lo, hi) in zip(res.agents, res.rating_ci, strict=True)},
        "matrix": [[None if math.isnan(x) else round(x, 4) for x in row] for row in res.matrix],
    }


def load_ladder(path: str | pathlib.Path = LADDER_FILE) -> dict[str, Any]:
    """The committed ladder document.

    Raises:
        ValueError: When the file is not a ladder of :data:`LADDER_PROTOCOL`.
    """
    p = pathlib.Path(path)
    if not p.is_file():
        raise ValueError(f"no ladder file at {p}; make one with `tabletop-gym ladder --refit`")
    doc = json.loads(p.read_text())
    if not isinstance(doc, dict) or doc.get("protocol") != LADDER_PROTOCOL:
        raise ValueError(f"{p} is not a ladder of protocol {LADDER_PROTOCOL} (it says "
                         f"{doc.get('protocol') if isinstance(doc, dict) else None!r})")
    return doc


def fit_one(scores: Sequence[float], games: Sequence[int], ratings: Sequence[float],
            prior_draws: float = PRIOR_DRAWS) -> float:
    """The rating whose expected scores against fixed ``ratings`` match the observed ``scores``.

    Args:
        scores: Points won against each member (a win 1, a shared win 0.5).
        games: Games played against each member.
        ratings: The members' fixed ratings.
        prior_draws: Virtual drawn games added against each member.

    Returns:
        The maximum-likelihood Bradley-Terry rating on the Elo scale (Newton's method on the
        concave log-likelihood).
    """
    s = np.asarray(scores, float) + prior_draws / 2
    n = np.asarray(games, float) + prior_draws
    r_m = np.asarray(ratings, float)
    r = float(np.average(r_m, weights=n))
    for _ in range(100):
        p = 1 / (1 + np.exp(-(r - r_m) / ELO))
        grad = float((s - n * p).sum()) / ELO
        hess = -float((n * p * (1 - p)).sum()) / ELO**2
        step = grad / hess
        r -= step
        if abs(step) < 1e-9:
            break
    return r


@dataclasses.dataclass
class LadderRating:
    """An agent rated against the frozen ladder.

    Attributes:
        agent: Its name.
        rating: Its rating (Elo scale; random = 0).
        ci: Its 95 % bootstrap interval.
        per_member: Per member: its fixed rating, games, the agent's points and win rate.
        protocol: :data:`LADDER_PROTOCOL`.
        ladder_version: The package version that fitted the ladder.
        invalid: Why an LLM agent's rating is invalid (its fallback rate against a member
            passed :data:`tabletop_gym.agents.llm.FALLBACK_LIMIT`), by member; empty when valid.
    """

    agent: str
    rating: float
    ci: tuple[float, float]
    per_member: list[dict[str, Any]]
    protocol: str
    ladder_version: str
    invalid: dict[str, str] = dataclasses.field(default_factory=dict)

    def markdown(self) -> str:
        """The rating and the games behind it, as markdown."""
        mark = " **(INVALID)**" if self.invalid else ""
        lines = [f"`{self.agent}`{mark}: **{self.rating:.0f}** Elo [95 % CI {self.ci[0]:.0f}, "
                 f"{self.ci[1]:.0f}] against the frozen ladder {self.protocol} (fitted by "
                 f"tabletop-gym {self.ladder_version}; random = 0)", "",
                 "| member | member rating | games | points | win rate |", "|---|---|---|---|---|"]
        for m in self.per_member:
            lines.append(f"| `{m['member']}` | {m['rating']:.0f} | {m['games']} | "
                         f"{m['points']:g} | {m['win_rate']:.3f} |")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The rating as a JSON document (what ``tabletop-gym ladder --out`` writes)."""
        doc = dataclasses.asdict(self)
        doc["ci"] = list(self.ci)
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> LadderRating:
        """A rating back from :meth:`to_json`'s document.

        Raises:
            ValueError: When ``doc`` is not a rating of :data:`LADDER_PROTOCOL`.
        """
        if not isinstance(doc, dict) or doc.get("protocol") != LADDER_PROTOCOL:
            raise ValueError(f"not a ladder rating of protocol {LADDER_PROTOCOL}")
        fields = {f.name for f in dataclasses.fields(cls)}
        if set(doc) != fields:
            raise ValueError(f"a ladder rating has the entries {sorted(fields)}, got "
                             f"{sorted(doc)}")
        return cls(**{**doc, "ci": tuple(doc["ci"])})


def rate_against(agent: Any, games_per_member: int = GAMES_PER_MEMBER, seed: int = 0,
                 bootstrap: int = 1000, ladder: dict[str, Any] | None = None) -> LadderRating:
    """Rate ``agent`` against the frozen ladder without refitting it.

    Args:
        agent: An agent spec or object (``llm:`` specs included).
        games_per_member: Games against each member (:data:`GAMES_PER_MEMBER` is the protocol's).
        seed: First deal's seed (0 under the protocol).
        bootstrap: Bootstrap resamples of the interval.
        ladder: The ladder document (default: the committed one).

    Raises:
        ValueError: On a malformed spec, a ladder of another protocol, or too few games.
    """
    if games_per_member < 1:
        raise ValueError(f"games_per_member must be at least 1, got {games_per_member}")
    check_spec(agent)
    doc = load_ladder() if ladder is None else ladder
    if doc.get("protocol") != LADDER_PROTOCOL:
        raise ValueError(f"the ladder is of protocol {doc.get('protocol')!r}, not "
                         f"{LADDER_PROTOCOL}")
    members = list(doc["ratings"])
    outcomes = []
    invalid = {}
    for member in members:
        res = evaluate(doc["game"], agent, member, n_games=games_per_member, seed=seed,
                       num_players=doc["num_players"])
        outcomes.append(np.array([float(g["outcome"]) for g in res.per_game]))
        invalid.update({f"{name} against {member}": why for name, why in res.invalid.items()})
    fixed = [float(doc["ratings"][m]) for m in members]
    rating = fit_one([o.sum() for o in outcomes], [o.size for o in outcomes], fixed)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(bootstrap):
        picked = [o[rng.integers(0, o.size, o.size)] for o in outcomes]
        boots.append(fit_one([p.sum() for p in picked], [p.size for p in picked], fixed))
    lo, hi = np.percentile(boots, [2.5, 97.5]) if bootstrap else (rating, rating)
    per = [{"member": m, "rating": r, "games": int(o.size), "points": float(o.sum()),
            "win_rate": float(o.mean())} for m, r, o in zip(members, fixed, outcomes, strict=True)]
    return LadderRating(agent_name(agent), rating, (float(lo), float(hi)), per, LADDER_PROTOCOL,
                        str(doc.get("package_version", "?")), invalid)
