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


def _choices(ds: GameDataset, size: int) -> tuple[np.ndarray, ...]:
    arr = ds.arrays()
    keep = arr["action_mask"].sum(axis=1) > 1
    return (arr["observation"][keep, :size], arr["action_mask"][keep].astype(bool),
            arr["action"][keep].astype(np.int64), arr["game_index"][keep])


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
    try:
        import torch
    except ImportError:
        raise ImportError('behaviour cloning needs torch: pip install "tabletop-gym[train]"'
                          ) from None

    from tabletop_gym.agents.base import reference_size
    from tabletop_gym.agents.jax_policy import save_policy
    from tabletop_gym.arena.envs import raw_env_factory
    from tabletop_gym.provenance import metadata as provenance
    from tabletop_gym.registry import game_spec

    if epochs < 1 or batch_size < 1 or lr <= 0 or not hidden or min(hidden) < 1:
        raise ValueError(f"epochs, batch_size, lr and every hidden width must be positive; got "
                         f"{epochs}, {batch_size}, {lr}, {hidden}")
    if dataset.num_games < 2:
        raise ValueError(f"{dataset.path}: cloning holds out games; it needs at least 2")
    meta = dataset.metadata
    env = raw_env_factory(meta["game"])(**meta["env_kwargs"])
    # The network reads the reference observer's vector, as every jax:<path> policy does.
    size = reference_size(env.observer)
    x, mask, y, games = _choices(dataset, size)
    cut = dataset.num_games - max(1, dataset.num_games // 10)
    # Rows are in game order, so the fitted games are a prefix: slices, not copies, of x.
    n_train = int(np.searchsorted(games, cut))
    train, valid = slice(0, n_train), slice(n_train, len(games))
    mu = x[train].mean(axis=0)
    sd = x[train].std(axis=0)
    sd = np.where(sd > 1e-6, sd, 1.0).astype(np.float32)
    xs = np.empty_like(x)
    for lo in range(0, len(x), 65536):
        xs[lo:lo + 65536] = (x[lo:lo + 65536] - mu) / sd

    torch.manual_seed(seed)
    layers: list[Any] = []
    width = size
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, int(meta["num_actions"])))
    net = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    xt = torch.from_numpy(xs)
    mt = torch.from_numpy(mask)
    yt = torch.from_numpy(y)
    rows = np.arange(n_train)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    # One thread: a batch of a few hundred rows through a 256-wide MLP is too small to share,
    # and on a busy machine the extra threads spin (a 3 s fit took 25 s with two).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for _ in range(epochs):
            for chunk in np.array_split(rng.permutation(rows), max(1, len(rows) // batch_size)):
                idx = torch.from_numpy(chunk)
                logits = net(xt[idx]).masked_fill(~mt[idx], -1e9)
                loss = torch.nn.functional.cross_entropy(logits, yt[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
    finally:
        torch.set_num_threads(threads)
    seconds = time.perf_counter() - start

    weights = [(m.weight.detach().numpy().T.astype(np.float32), m.bias.detach().numpy())
               for m in net if isinstance(m, torch.nn.Linear)]
    # Fold the standardisation into the first layer: ((x - mu) / sd) @ W + b
    # = x @ (W / sd[:, None]) + (b - (mu / sd) @ W).
    w0, b0 = weights[0]
    weights[0] = (w0 / sd[:, None], b0 - (mu / sd) @ w0)
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(weights[:-1]):
        arrays[f"actor/hidden_{i}/kernel"], arrays[f"actor/hidden_{i}/bias"] = w, b
    arrays["actor/out/kernel"], arrays["actor/out/bias"] = weights[-1]

    del xt, xs

    def accuracy(where: slice) -> float:
        # The saved (folded) network on the raw vectors, as jax:<path> plays it.
        hits = 0
        lo, hi = where.start, where.stop
        for a in range(lo, hi, 65536):
            b = min(a + 65536, hi)
            z = x[a:b]
            for j, (w, bias) in enumerate(weights):
                z = z @ w + bias
                if j < len(weights) - 1:
                    z = np.maximum(z, 0.0)
            hits += int(np.sum(np.argmax(np.where(mask[a:b], z, -np.inf), axis=1) == y[a:b]))
        return hits / (hi - lo) if hi > lo else float("nan")

    report = CloneReport(n_train, len(games) - n_train, accuracy(train), accuracy(valid),
                         round(seconds, 2))
    # The game's configuration, without the env's own switches (Positano's split_bids), which
    # the checkpoint's loader refuses as config keys.
    fields = {f.name for f in dataclasses.fields(game_spec(meta["game"]).config_class())}
    config = {k: v for k, v in meta["env_kwargs"].items() if k in fields}
    save_policy(out, arrays, {
        "game": meta["game"], "config": config,
        "num_players": int(meta["num_players"]), "observation_size": size,
        "num_actions": int(meta["num_actions"]), "hidden": list(hidden), "activation": "relu",
        "critic": False,  # a clone learns moves, not values
        "train": {"method": "behaviour cloning (masked softmax cross-entropy, Adam)",
                  "dataset": str(dataset.folder), "dataset_sha256": dataset.manifest["files"][0][
                      "sha256"], "policies": meta["policies"], "games": dataset.num_games,
                  "held_out_games": dataset.num_games - cut, "epochs": epochs,
                  "batch_size": batch_size, "lr": lr, **dataclasses.asdict(report)},
        "seed": seed, "learner_steps": 0, "provenance": provenance(),
    })
    return report
