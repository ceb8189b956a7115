"""A learner on the search-annotated action values: the clone tilted toward the search's moves.

:func:`fit_values` fits the behaviour clone's MLP with two heads of one output per action on a
shared trunk:

* the **policy head**, by the clone's loss (cross-entropy of the softmax over the legal actions
  with the recorded move) on every fitted decision with a choice, annotated or not: the many
  unannotated decisions teach it what the data's policy plays;
* the **value head**, by regression on the annotated decisions: its output for each legal move is
  fitted (mean squared error over the legal moves) to the search's value of that move centred on
  the decision's mean over its legal moves and divided by one spread fitted on all annotated
  decisions (:func:`value_targets`). Only the differences between a decision's moves decide
  anything, and the centring keeps the deal's luck (which raises or lowers every move of a
  decision alike) out of the target.

It plays ``argmax over the legal moves of logits + beta * values``: the clone's policy times
``exp(beta * value)``, renormalised (a KL-regularised one-step improvement of the data's policy
by the search's values; ``beta = 0`` is the clone, a large ``beta`` the greedy move of the values
with the clone breaking near-ties). Both heads are linear in the last hidden layer, so the sum is
one output layer and the saved checkpoint is the clone's numpy policy format (``jax:<path>``).

``beta`` is chosen without playing a game: the last tenth of the annotated games (at least one)
is held out of the fit, and each ``beta`` of :data:`BETAS` is scored on their decisions by the
mean search value of the move it plays minus that of the recorded move. The search's values of a
held-out decision are one noisy sample that the fit never saw, so this mean estimates, without
bias, how much the policy's moves gain over the data's by the search's own yardstick; the
``beta`` with the largest gain is saved (ties: the smaller).

Training needs torch (the ``train`` extra).
"""

from __future__ import annotations

import dataclasses
import pathlib
import time

import numpy as np

from tabletop_gym.tasks.datasets.cloning import (
    agreement,
    decisions,
    folded,
    forward,
    import_torch,
    mlp,
    save_network,
    single_thread,
)
from tabletop_gym.tasks.datasets.games import GameDataset

BETAS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0)
"""The weights of the value head tried on the held-out annotated games (0: the clone alone)."""


@dataclasses.dataclass(frozen=True)
class ValuesReport:
    """What a run of the values learner did.

    Attributes:
        train_decisions: Decisions with a choice the policy head was fitted to.
        annotated_decisions: Of those, the annotated ones the value head was fitted to.
        held_out_annotated: Annotated decisions of the held-out annotated games.
        valid_decisions: Decisions with a choice of the held-out last tenth of the games.
        train_accuracy: Share of the fitted decisions where the saved policy plays the recorded
            move.
        valid_accuracy: The same on the held-out last tenth of the games.
        value_scale: The spread the centred search values were divided by.
        beta: The value head's weight saved (chosen on the held-out annotated games).
        gains: By ``beta``: mean search value of the policy's move minus the recorded move's on
            the held-out annotated decisions.
        seconds: Wall time of the fit.
    """

    train_decisions: int
    annotated_decisions: int
    held_out_annotated: int
    valid_decisions: int
    train_accuracy: float
    valid_accuracy: float
    value_scale: float
    beta: float
    gains: dict[str, float]
    seconds: float


def value_targets(values: np.ndarray, mask: np.ndarray,
                  scale: float | None = None) -> tuple[np.ndarray, float]:
    """The value head's targets: each legal move's value minus its decision's mean, scaled.

    Args:
        values: Search values ``(N, actions)`` (NaN where a move has none).
        mask: Legal actions ``(N, actions)`` bool; every legal move has a value.
        scale: The spread to divide by (default: the root mean square of the centred values
            over every legal move of these rows, 1 where that is 0).

    Returns:
        ``(targets, scale)``: targets ``(N, actions)`` float32, 0 at illegal actions.
    """
    v = np.where(mask, values, 0.0).astype(np.float64)
    count = mask.sum(axis=1, keepdims=True)
    centred = np.where(mask, v - v.sum(axis=1, keepdims=True) / count, 0.0)
    if scale is None:
        rms = float(np.sqrt((centred ** 2).sum() / max(int(mask.sum()), 1)))
        scale = rms if rms > 0 else 1.0
    return (centred / scale).astype(np.float32), float(scale)


def play_layer(weights: list[tuple[np.ndarray, np.ndarray]], actions: int,
               beta: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """The two-headed network as one: the output layer ``policy + beta * value``."""
    w, b = weights[-1]
    return [*weights[:-1], (w[:, :actions] + beta * w[:, actions:],
                            b[:actions] + beta * b[actions:])]


def fit_values(dataset: GameDataset, out: str | pathlib.Path, value_weight: float = 1.0,
               value_passes: int = 1, beta: float | None = None,
               hidden: tuple[int, ...] = (256, 256), epochs: int = 10, batch_size: int = 256,
               lr: float = 1e-3, seed: int = 0) -> ValuesReport:
    """Fit the two-headed network to an annotated games dataset and save its policy as ``out``.

    Args:
        dataset: A games dataset with search-annotated decisions (every seat's are used).
        out: The checkpoint to write (``.npz``; ``jax:<out>`` plays it).
        value_weight: Weight of the value head's loss against the policy head's.
        value_passes: Passes over the fitted annotated decisions per epoch (each Adam step
            takes its share of them).
        beta: The value head's weight in play (default: chosen from :data:`BETAS` on the
            held-out annotated games).
        hidden: Widths of the hidden layers (ReLU).
        epochs: Passes over the fitted decisions.
        batch_size: Decisions of the policy head's loss per Adam step.
        lr: Adam's step size.
        seed: Seeds the initial weights and the batch order.

    Raises:
        ValueError: On bad settings, a dataset with fewer than two games, or one with fewer than
            two annotated games (one is held out to choose ``beta``), before anything is written.
    """
    torch = import_torch("the values learner")
    if (epochs < 1 or batch_size < 1 or lr <= 0 or value_weight <= 0 or value_passes < 1
            or not hidden or min(hidden) < 1 or (beta is not None and beta < 0)):
        raise ValueError(f"epochs, batch_size, lr, value_weight, value_passes and every hidden "
                         f"width must be positive and beta at least 0; got epochs={epochs}, "
                         f"batch_size={batch_size}, lr={lr}, value_weight={value_weight}, "
                         f"value_passes={value_passes}, hidden={hidden}, beta={beta}")
    arr = dataset.arrays()
    annotated_games = np.unique(arr["game_index"][arr["annotated"]])
    if annotated_games.size < 2:
        raise ValueError(
            f"{dataset.path}: search-annotated decisions in {annotated_games.size} of its games; "
            "the values learner needs them in at least 2 (one is held out to weigh the value "
            "head): make the dataset with --annotate SIMULATIONS --annotated-games K, K at "
            "least 2")
    data = decisions(dataset)
    n_train = data.n_train
    actions = int(dataset.metadata["num_actions"])
    annotated = arr["annotated"][data.rows]
    values = arr["search_values"][data.rows]
    # The last tenth of the annotated games is held out of both heads' fit to choose beta.
    held_games = annotated_games[-max(1, annotated_games.size // 10):]
    held = np.isin(data.game, held_games) & annotated
    fit_rows = np.flatnonzero(~held[:n_train])
    value_rows = np.flatnonzero(annotated[:n_train] & ~held[:n_train])
    if value_rows.size == 0:
        raise ValueError(f"{dataset.path}: every annotated game is held out; annotate more of "
                         "the first games (--annotated-games)")
    targets, scale = value_targets(values[value_rows], data.mask[value_rows])
    torch.manual_seed(seed)
    net = mlp(torch, data.size, hidden, 2 * actions)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    mt = torch.from_numpy(data.mask)
    yt = torch.from_numpy(data.action)
    vt = torch.from_numpy(targets)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    with single_thread(torch):
        for _ in range(epochs):
            chunks = np.array_split(rng.permutation(fit_rows),
                                    max(1, fit_rows.size // batch_size))
            # Each step takes its share of value_passes passes over the annotated decisions.
            order = np.concatenate([rng.permutation(value_rows.size)
                                    for _ in range(value_passes)])
            for chunk, vchunk in zip(chunks, np.array_split(order, len(chunks)), strict=True):
                idx = torch.from_numpy(chunk)
                logits = net(torch.from_numpy(data.inputs(chunk)))[:, :actions]
                loss = torch.nn.functional.cross_entropy(
                    logits.masked_fill(~mt[idx], -1e9), yt[idx])
                if vchunk.size:
                    rows = value_rows[vchunk]
                    pred = net(torch.from_numpy(data.inputs(rows)))[:, actions:]
                    legal = mt[torch.from_numpy(rows)]
                    err = (pred - vt[torch.from_numpy(vchunk)]).masked_fill(~legal, 0.0)
                    loss = loss + value_weight * (err * err).sum() / legal.sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
    seconds = time.perf_counter() - start

    weights = folded(net, data)
    gains = held_out_gains(weights, data.raw(np.flatnonzero(held)), data.mask[held],
                           data.action[held], values[held], actions)
    chosen = beta if beta is not None else max(BETAS, key=lambda b: (gains[b], -b))
    play = play_layer(weights, actions, chosen)
    report = ValuesReport(
        fit_rows.size, value_rows.size, int(held.sum()), len(data.rows) - n_train,
        agreement(play, data, slice(0, n_train)),
        agreement(play, data, slice(n_train, len(data.rows))), round(scale, 6), chosen,
        {f"{b:g}": round(g, 6) for b, g in gains.items()}, round(seconds, 2))
    save_network(out, play, dataset, data, hidden, seed, {
        "method": "values learner (masked softmax cross-entropy on the recorded moves, squared "
                  "error of a value head on the centred search values, Adam; plays logits + "
                  "beta * values)",
        "annotation": dataset.metadata["annotation"], "epochs": epochs,
        "batch_size": batch_size, "lr": lr, "value_weight": value_weight,
        "value_passes": value_passes, **dataclasses.asdict(report)})
    return report


def held_out_gains(weights: list[tuple[np.ndarray, np.ndarray]], raw: np.ndarray,
                   mask: np.ndarray, action: np.ndarray, values: np.ndarray,
                   actions: int) -> dict[float, float]:
    """By ``beta`` of :data:`BETAS`: the search-value gain of the moves it plays.

    Args:
        weights: The folded two-headed network (last layer ``2 * actions`` outputs).
        raw: The held-out annotated decisions' raw observation vectors.
        mask: Their legal actions.
        action: Their recorded actions.
        values: Their search values (every legal move has one).
        actions: The game's number of actions.

    Returns:
        The mean over the decisions of the search value of the move ``argmax(logits + beta *
        values)`` minus that of the recorded move (NaN for every ``beta`` without decisions).
    """
    out = forward(weights, raw) if len(raw) else np.zeros((0, 2 * actions), np.float32)
    logits, heads = out[:, :actions], out[:, actions:]
    gains = {}
    taken = values[np.arange(len(values)), action]
    for b in BETAS:
        move = np.argmax(np.where(mask, logits + b * heads, -np.inf), axis=1)
        gains[b] = (float(np.mean(values[np.arange(len(values)), move] - taken)) if len(raw)
                    else float("nan"))
    return gains
