"""Behaviour cloning on a games dataset: a masked-softmax MLP saved as a numpy policy checkpoint.

:func:`clone` fits an MLP to the decisions of a games file (every seat's, those with more than one
legal action: a forced move teaches nothing) by cross-entropy of the softmax over the legal
actions only, the logits of illegal ones set to minus infinity. The inputs are standardised while
training, and the standardisation is then folded into the first layer, so the saved network reads
the raw observation vector. The checkpoint is the format of
:mod:`tabletop_gym.agents.jax_policy`, so ``jax:<path>`` plays it greedily with numpy alone
wherever agents are named (``tabletop-gym suite run --agent jax:bc.npz`` scores it on a task).

The last tenth of the games (at least one) is held out: the report gives the share of their
decisions where the clone chooses the recorded move. Training needs torch (the ``train`` extra).
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
from typing import Any

import numpy as np

from tabletop_gym.tasks.datasets.games import GameDataset


@dataclasses.dataclass(frozen=True)
class CloneReport:
    """What a cloning run did.

    Attributes:
        train_decisions: Decisions with a choice it was fitted to.
        valid_decisions: Held-out decisions with a choice.
        train_accuracy: Share of the fitted decisions where the clone picks the recorded move.
        valid_accuracy: The same on the held-out games.
        seconds: Wall time of the fit.
    """

    train_decisions: int
    valid_decisions: int
    train_accuracy: float
    valid_accuracy: float
    seconds: float


@dataclasses.dataclass
class Decisions:
    """A games file's decisions with a choice, as the offline learners read them.

    The rows are indices into the dataset's observation array, not copies of it (a Positano
    observation has 1,448 entries: a copy of 6,000 games' is gigabytes); :meth:`inputs` gives a
    batch standardised by the fitted games' mean and spread.

    Attributes:
        obs: The dataset's whole observation array.
        rows: The rows with more than one legal action (a forced move teaches nothing), in file
            order.
        size: The observation entries the networks read (the reference observer's vector).
        mask: Their legal actions.
        action: Their recorded actions.
        game: Their game indices.
        seat: Their acting seats.
        returns: Every seat's final return, by row.
        n_train: The first ``n_train`` rows are the fitted games; the rest are held out.
        held_out_games: Games held out (the last tenth, at least one).
        mu: The fitted rows' mean input.
        sd: Their standard deviation (1 where an entry does not vary).
    """

    obs: np.ndarray
    rows: np.ndarray
    size: int
    mask: np.ndarray
    action: np.ndarray
    game: np.ndarray
    seat: np.ndarray
    returns: np.ndarray
    n_train: int
    held_out_games: int
    mu: np.ndarray
    sd: np.ndarray

    def raw(self, idx: np.ndarray | slice) -> np.ndarray:
        """The raw observation vectors of the decisions ``idx``."""
        return self.obs[self.rows[idx], :self.size]

    def inputs(self, idx: np.ndarray) -> np.ndarray:
        """The standardised observation vectors of the decisions ``idx`` (float32)."""
        return ((self.raw(idx) - self.mu) / self.sd).astype(np.float32, copy=False)


def decisions(dataset: GameDataset) -> Decisions:
    """The dataset's decisions with a choice, split into fitted and held-out games.

    Raises:
        ValueError: On a dataset with fewer than two games (one is held out).
    """
    from tabletop_gym.agents.base import reference_size
    from tabletop_gym.arena.envs import raw_env_factory

    if dataset.num_games < 2:
        raise ValueError(f"{dataset.path}: the offline learners hold out games; they need at "
                         "least 2")
    meta = dataset.metadata
    env = raw_env_factory(meta["game"])(**meta["env_kwargs"])
    # The network reads the reference observer's vector, as every jax:<path> policy does.
    size = reference_size(env.observer)
    arr = dataset.arrays()
    rows = np.flatnonzero(arr["action_mask"].sum(axis=1) > 1)
    game = arr["game_index"][rows]
    cut = dataset.num_games - max(1, dataset.num_games // 10)
    # Rows are in game order, so the fitted games are a prefix.
    n_train = int(np.searchsorted(game, cut))
    obs = arr["observation"]
    total = np.zeros(size, np.float64)
    square = np.zeros(size, np.float64)
    for lo in range(0, n_train, 65536):
        chunk = obs[rows[lo:min(lo + 65536, n_train)], :size].astype(np.float64)
        total += chunk.sum(axis=0)
        square += (chunk * chunk).sum(axis=0)
    mu = total / max(n_train, 1)
    sd = np.sqrt(np.maximum(square / max(n_train, 1) - mu * mu, 0.0))
    return Decisions(
        obs=obs, rows=rows, size=size, mask=arr["action_mask"][rows].astype(bool),
        action=arr["action"][rows].astype(np.int64), game=game, seat=arr["seat"][rows],
        returns=arr["returns"][rows], n_train=n_train, held_out_games=dataset.num_games - cut,
        mu=mu.astype(np.float32), sd=np.where(sd > 1e-6, sd, 1.0).astype(np.float32))


def mlp(torch: Any, size: int, hidden: tuple[int, ...], outputs: int) -> Any:
    """A ReLU MLP from ``size`` inputs through ``hidden`` to ``outputs`` (torch Sequential)."""
    layers: list[Any] = []
    width = size
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, outputs))
    return torch.nn.Sequential(*layers)


def folded(net: Any, data: Decisions) -> list[tuple[np.ndarray, np.ndarray]]:
    """The network's layers as numpy ``(kernel, bias)`` pairs reading the raw observation.

    The standardisation is folded into the first layer: ``((x - mu) / sd) @ W + b =
    x @ (W / sd[:, None]) + (b - (mu / sd) @ W)``.
    """
    weights = [(m.weight.detach().numpy().T.astype(np.float32), m.bias.detach().numpy())
               for m in net if type(m).__name__ == "Linear"]
    w0, b0 = weights[0]
    weights[0] = (w0 / data.sd[:, None], b0 - (data.mu / data.sd) @ w0)
    return weights


def forward(weights: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The folded network's outputs on raw observation vectors ``x`` (ReLU between layers)."""
    z = x
    for j, (w, bias) in enumerate(weights):
        z = z @ w + bias
        if j < len(weights) - 1:
            z = np.maximum(z, 0.0)
    return z


def agreement(weights: list[tuple[np.ndarray, np.ndarray]], data: Decisions,
              where: slice) -> float:
    """Share of the decisions ``where`` whose recorded move is the network's masked argmax.

    The saved (folded) network on the raw vectors, as ``jax:<path>`` plays it.
    """
    hits = 0
    lo, hi = where.start, where.stop
    for a in range(lo, hi, 65536):
        b = min(a + 65536, hi)
        z = forward(weights, data.raw(slice(a, b)))
        hits += int(np.sum(np.argmax(np.where(data.mask[a:b], z, -np.inf), axis=1)
                           == data.action[a:b]))
    return hits / (hi - lo) if hi > lo else float("nan")


def save_network(out: str | pathlib.Path, weights: list[tuple[np.ndarray, np.ndarray]],
                 dataset: GameDataset, data: Decisions, hidden: tuple[int, ...], seed: int,
                 train: dict[str, Any]) -> None:
    """Save the network as a ``jax:<path>`` policy checkpoint (its output is the actor's)."""
    from tabletop_gym.agents.jax_policy import save_policy
    from tabletop_gym.provenance import metadata as provenance
    from tabletop_gym.registry import game_spec

    meta = dataset.metadata
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(weights[:-1]):
        arrays[f"actor/hidden_{i}/kernel"], arrays[f"actor/hidden_{i}/bias"] = w, b
    arrays["actor/out/kernel"], arrays["actor/out/bias"] = weights[-1]
    # The game's configuration, without the env's own switches (Positano's split_bids), which
    # the checkpoint's loader refuses as config keys.
    fields = {f.name for f in dataclasses.fields(game_spec(meta["game"]).config_class())}
    config = {k: v for k, v in meta["env_kwargs"].items() if k in fields}
    save_policy(out, arrays, {
        "game": meta["game"], "config": config,
        "num_players": int(meta["num_players"]), "observation_size": data.size,
        "num_actions": int(meta["num_actions"]), "hidden": list(hidden), "activation": "relu",
        "critic": False,  # the learners' one network chooses the moves
        "train": {"dataset": str(dataset.folder),
                  "dataset_sha256": dataset.manifest["files"][0]["sha256"],
                  "policies": meta["policies"], "games": dataset.num_games,
                  "held_out_games": data.held_out_games, **train},
        "seed": seed, "learner_steps": 0, "provenance": provenance(),
    })


def single_thread(torch: Any) -> Any:
    """A context in which torch uses one thread.

    A batch of a few hundred rows through a 256-wide MLP is too small to share, and on a busy
    machine the extra threads spin (a 3 s fit took 25 s with two).
    """
    import contextlib

    @contextlib.contextmanager
    def one() -> Any:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(threads)

    return one()


def import_torch(what: str) -> Any:
    """torch, or an ImportError naming the extra that brings it."""
    try:
        import torch
    except ImportError:
        raise ImportError(f'{what} needs torch: pip install "tabletop-gym[train]"') from None
    return torch


def clone(
    dataset: GameDataset,
    out: str | pathlib.Path,
    hidden: tuple[int, ...] = (256, 256),
    epochs: int = 10,
    batch_size: int = 256,
    lr: float = 1e-3,
    seed: int = 0,
) -> CloneReport:
    """Fit a masked-softmax MLP to the dataset's decisions and save it as ``out`` (``.npz``).

    Args:
        dataset: A games dataset (all seats' decisions are used).
        out: The checkpoint to write.
        hidden: Widths of the hidden layers (ReLU).
        epochs: Passes over the training decisions.
        batch_size: Decisions per Adam step.
        lr: Adam's step size.
        seed: Seeds the initial weights and the batch order.

    Raises:
        ValueError: On bad settings, or a dataset with fewer than two games.
    """
    torch = import_torch("behaviour cloning")
    if epochs < 1 or batch_size < 1 or lr <= 0 or not hidden or min(hidden) < 1:
        raise ValueError(f"epochs, batch_size, lr and every hidden width must be positive; got "
                         f"{epochs}, {batch_size}, {lr}, {hidden}")
    data = decisions(dataset)
    n_train = data.n_train
    torch.manual_seed(seed)
    net = mlp(torch, data.size, hidden, int(dataset.metadata["num_actions"]))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    mt = torch.from_numpy(data.mask)
    yt = torch.from_numpy(data.action)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    with single_thread(torch):
        for _ in range(epochs):
            for chunk in np.array_split(rng.permutation(n_train),
                                        max(1, n_train // batch_size)):
                idx = torch.from_numpy(chunk)
                logits = net(torch.from_numpy(data.inputs(chunk))).masked_fill(~mt[idx], -1e9)
                loss = torch.nn.functional.cross_entropy(logits, yt[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
    seconds = time.perf_counter() - start

    weights = folded(net, data)
    report = CloneReport(n_train, len(data.rows) - n_train,
                         agreement(weights, data, slice(0, n_train)),
                         agreement(weights, data, slice(n_train, len(data.rows))),
                         round(seconds, 2))
    save_network(out, weights, dataset, data, hidden, seed, {
        "method": "behaviour cloning (masked softmax cross-entropy, Adam)", "epochs": epochs,
        "batch_size": batch_size, "lr": lr, **dataclasses.asdict(report)})
    return report
