"""Belief probes: what a model believes about a hidden quantity, scored against the truth.

At chosen decisions an LLM seat is asked, after its move and in a conversation of its own, for a
probability distribution over something it cannot see (docs/llm.md, "Belief probes"):

* ``offering`` (Rapa Nui): the kind of one of another seat's face-down offerings on the stone,
  picked at random (docs/rules/rapa_nui.md §3.1.2: the offering seat alone knows it);
* ``hand`` (Rapa Nui): the kind of one of another seat's hand cards, picked at random;
* ``bid`` (Positano): the bid card another seat has committed and not yet revealed
  (docs/rules/positano.md §3.1: the bids are revealed together).

The truth of a probe is a distribution too: the share of each kind among the cards it is picked
from (one card: certainty). A belief ``p`` is scored against the truth ``t`` by log-loss
``-sum t_i log p_i`` (``p`` floored at :data:`FLOOR`) and by the Brier score
``sum (p_i - t_i)^2``, beside two references:

* the uniform prior over the outcomes;
* the posterior the engine's own resampler gives: the mean truth over worlds drawn by
  ``state.resample_hidden(seat, rng)`` (every world consistent with what the seat knows, each as
  likely as the resampler makes it), smoothed by half a world of the uniform prior. It is what the
  seat's information alone implies, with no model of how the other seats play.

An answer is read strictly (:func:`parse_belief`): one ``outcome: probability`` line per outcome,
each outcome once, numbers in 0..1 summing to 1 within :data:`SUM_TOLERANCE`. It is classed
``valid``, ``malformed`` (not that form) or ``invalid`` (the form, but not a distribution), or
``no_answer`` (decided by the caller), and counted like a move.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tabletop_gym.registry import RegistryView, game_specs, resolve

VALID = "valid"
MALFORMED = "malformed"
INVALID = "invalid"
NO_ANSWER = "no_answer"
PROBE_CLASSES = (VALID, MALFORMED, INVALID, NO_ANSWER)
"""The classes of a probe's answer, in the order reports list them."""

FLOOR = 1e-4
"""A stated probability below this counts as this in the log-loss (a zero on the truth would
make it infinite; the cap is ``-log(1e-4)``, about 9.2 nats)."""

SUM_TOLERANCE = 0.02
"""How far from 1 the stated probabilities may sum (they are then rescaled to sum to 1)."""

WORLDS = 200
"""Worlds the resampler draws for a probe's posterior."""

@dataclasses.dataclass(frozen=True)
class Probe:
    """One kind of belief probe.

    Attributes:
        name: Its name (``offering``, ``hand``, ``bid``).
        game: The registry name of its game.
        outcomes: The outcomes, in the order of every distribution.
        what: The question, with ``{seat}`` for the seat asked about.
        truth: ``truth(state, seat)``: the distribution of the hidden quantity of ``seat`` in
            the (full) ``state``; ``None`` where the probe does not apply (nothing to pick).
    """

    name: str
    game: str
    outcomes: tuple[str, ...]
    what: str
    truth: Callable[[Any, int], np.ndarray | None]


def _probes() -> dict[str, Probe]:
    return {line.name: Probe(line.name, spec.name, tuple(resolve(line.outcomes)), line.what,
                             resolve(line.truth))
            for spec in game_specs() for line in spec.benchmark.probes}


PROBES: RegistryView[str, Probe] = RegistryView(_probes)
"""Every probe, by name (the probes of every game's benchmark block)."""


def game_probes(game: str) -> list[Probe]:
    """The probes of ``game`` (none for a game without hidden quantities to ask about)."""
    return [p for p in PROBES.values() if p.game == game]


def targets(probe: Probe, state: Any, seat: int) -> list[int]:
    """The other seats ``probe`` can ask ``seat`` about now, in turn order after ``seat``.

    Whether a probe applies reads only public things (a seat's count of face-down offerings or
    hand cards, whether it has committed a bid), so the question is the same in every world the
    seat cannot tell apart.
    """
    n = state.num_players() if callable(getattr(state, "num_players", None)) else \
        state.game.num_players
    order = [(seat + k) % n for k in range(1, n)]
    return [q for q in order if probe.truth(state, q) is not None]


def question(probe: Probe, target: int) -> str:
    """The probe's question about seat ``target``, with the strict answer format."""
    example = "\n".join(f"{o}: {1 / len(probe.outcomes):.3f}" for o in probe.outcomes)
    return (f"Belief probe (no move is asked now). What do you believe about "
            f"{probe.what.format(seat=target)}? Give a probability for every outcome "
            f"({', '.join(probe.outcomes)}), one line each as 'outcome: probability', the "
            f"probabilities summing to 1, and nothing else. For example:\n{example}")


@dataclasses.dataclass(frozen=True)
class Belief:
    """What a probe's answer was read as.

    Attributes:
        kind: One of :data:`PROBE_CLASSES`.
        p: The distribution (rescaled to sum to 1) when ``valid``.
        reason: Why it is not valid (``""`` when valid).
    """

    kind: str
    p: np.ndarray | None = None
    reason: str = ""


_LINE = re.compile(r"\s*[-*]?\s*(.+?)\s*[:=]\s*(\S+)\s*")


def parse_belief(answer: str, outcomes: Sequence[str]) -> Belief:
    """Read ``answer`` strictly as one ``outcome: probability`` line per outcome.

    Blank lines are skipped; outcome names are matched case-insensitively; a probability is a
    decimal number (``0.25``) or a percentage (``25%``).
    """
    names = {o.casefold(): i for i, o in enumerate(outcomes)}
    p = [math.nan] * len(outcomes)
    for line in answer.splitlines():
        if not line.strip():
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            return Belief(MALFORMED, reason=f"the line {line.strip()[:40]!r} is not "
                                            "'outcome: probability'")
        name, value = m.group(1).strip("`*'\" ").casefold(), m.group(2)
        if name not in names:
            return Belief(MALFORMED, reason=f"{m.group(1)[:40]!r} is not an outcome; the "
                                            f"outcomes are {', '.join(outcomes)}")
        i = names[name]
        if not math.isnan(p[i]):
            return Belief(MALFORMED, reason=f"{outcomes[i]} is given twice")
        try:
            x = float(value[:-1]) / 100 if value.endswith("%") else float(value)
        except ValueError:
            return Belief(MALFORMED, reason=f"{value[:20]!r} is not a number")
        p[i] = x
    missing = [o for o, x in zip(outcomes, p, strict=True) if math.isnan(x)]
    if missing:
        return Belief(MALFORMED, reason=f"no probability for {', '.join(missing)}")
    arr = np.asarray(p)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        return Belief(INVALID, reason="every probability must be in 0..1")
    if abs(arr.sum() - 1.0) > SUM_TOLERANCE:
        return Belief(INVALID, reason=f"the probabilities sum to {arr.sum():.3f}, not 1")
    return Belief(VALID, arr / arr.sum())


def log_loss(p: np.ndarray, truth: np.ndarray) -> float:
    """``-sum t_i log max(p_i, FLOOR)``: the log-loss of belief ``p`` (nats)."""
    return float(-(truth * np.log(np.maximum(p, FLOOR))).sum())


def brier(p: np.ndarray, truth: np.ndarray) -> float:
    """``sum (p_i - t_i)^2``: the Brier score of belief ``p``."""
    return float(((p - truth) ** 2).sum())


def posterior(probe: Probe, state: Any, seat: int, target: int, rng: random.Random,
              worlds: int = WORLDS) -> np.ndarray:
    """The resampler's posterior of ``probe`` about ``target`` for ``seat``.

    The mean truth over ``worlds`` draws of ``state.resample_hidden(seat, rng)``, plus half a
    world of the uniform prior (so an outcome no drawn world had keeps a little mass).
    """
    k = len(probe.outcomes)
    total = np.full(k, 0.5 / k)
    for _ in range(worlds):
        t = probe.truth(state.resample_hidden(seat, rng), target)
        if t is not None:
            total += t
    return total / total.sum()


def score(probe: Probe, state: Any, seat: int, target: int, belief: Belief,
          rng: random.Random, worlds: int = WORLDS) -> dict[str, Any]:
    """The scores of ``belief`` and of the two references against the truth in ``state``.

    Returns:
        ``{"truth", "posterior", "uniform_log_loss", "uniform_brier", "posterior_log_loss",
        "posterior_brier"}``, with ``"log_loss"`` and ``"brier"`` of the belief when it is
        valid.
    """
    truth = probe.truth(state, target)
    if truth is None:
        raise ValueError(f"the {probe.name} probe does not apply to seat {target} now")
    uniform = np.full(len(probe.outcomes), 1 / len(probe.outcomes))
    post = posterior(probe, state, seat, target, rng, worlds)
    out: dict[str, Any] = {
        "truth": [round(float(x), 6) for x in truth],
        "posterior": [round(float(x), 6) for x in post],
        "uniform_log_loss": log_loss(uniform, truth), "uniform_brier": brier(uniform, truth),
        "posterior_log_loss": log_loss(post, truth), "posterior_brier": brier(post, truth),
    }
    if belief.kind == VALID and belief.p is not None:
        out["log_loss"] = log_loss(belief.p, truth)
        out["brier"] = brier(belief.p, truth)
    return out


SCORES = ("log_loss", "brier", "uniform_log_loss", "uniform_brier", "posterior_log_loss",
          "posterior_brier")


def probe_rows(stats_by_agent: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per agent and probe: the answers' classes and the mean scores.

    The model's mean log-loss and Brier are over its valid answers; the references' over every
    probe asked (``*_all``) and over the valid answers (so the columns of one row compare).
    """
    rows = []
    for name, st in stats_by_agent.items():
        counts = st.get("probe_counts") or {}
        sums = st.get("probe_sums") or {}
        for probe in sorted({k.split("/")[0] for k in counts}):
            asked = sum(counts.get(f"{probe}/{c}", 0) for c in PROBE_CLASSES)
            valid = counts.get(f"{probe}/{VALID}", 0)
            row: dict[str, Any] = {"agent": name, "probe": probe, "asked": asked,
                                   **{c: counts.get(f"{probe}/{c}", 0) for c in PROBE_CLASSES}}
            for s in SCORES:
                row[s] = sums.get(f"{probe}/{s}", 0.0) / valid if valid else float("nan")
            for s in SCORES[2:]:
                row[f"{s}_all"] = sums.get(f"{probe}/{s}_all", 0.0) / asked if asked \
                    else float("nan")
            rows.append(row)
    return rows


def probe_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The probe rows as a markdown table (means over the valid answers)."""
    lines = ["| LLM agent | probe | asked | valid | malformed | invalid | no answer | "
             "log-loss | Brier | uniform log-loss | resampler log-loss | resampler Brier |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['agent']}` | {r['probe']} | {r['asked']} | {r[VALID]} | "
                     f"{r[MALFORMED]} | {r[INVALID]} | {r[NO_ANSWER]} | {r['log_loss']:.3f} | "
                     f"{r['brier']:.3f} | {r['uniform_log_loss']:.3f} | "
                     f"{r['posterior_log_loss']:.3f} | {r['posterior_brier']:.3f} |")
    return "\n".join(lines)


def reference_table(games: int = 6, worlds: int = 100, seed: int = 0,
                    num_players: int = 3) -> list[dict[str, Any]]:
    """The references of every probe over random games: the uniform prior and the posterior.

    At every decision of every seat in ``games`` games of random play (seeded), each probe is
    asked about the first seat it applies to; the rows hold the mean log-loss and Brier of the
    uniform prior and of the resampler's posterior against the truth.
    """
    from tabletop_gym.registry import game_spec

    rows = []
    for probe in PROBES.values():
        rng = random.Random(seed)
        env = game_spec(probe.game).envs().raw_env(num_players=num_players)
        n = 0
        sums = dict.fromkeys(SCORES[2:], 0.0)
        for g in range(games):
            env.reset(seed=seed + g)
            while not env.game_state.is_terminal():
                state = env.game_state
                seat = state.current_player()
                found = targets(probe, state, seat)
                if found:
                    got = score(probe, state, seat, found[0], Belief(MALFORMED), rng, worlds)
                    for s in sums:
                        sums[s] += got[s]
                    n += 1
                env.step(rng.choice(env.legal_actions()))
        rows.append({"probe": probe.name, "game": probe.game, "num_players": num_players,
                     "points": n, **{s: v / n for s, v in sums.items()}})
    return rows
