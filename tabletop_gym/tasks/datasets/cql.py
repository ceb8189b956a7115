"""Offline RL on a games dataset: discrete conservative Q-learning with action masks.

:func:`fit_cql` learns the acting seat's action values from whole games by double-DQN updates
with the conservative term of CQL(H) (Kumar et al. 2020, "Conservative Q-Learning for Offline
Reinforcement Learning", eq. 4), as d3rlpy's ``DiscreteCQL`` computes it: the loss of a batch is

``TD(Q) + alpha * mean(logsumexp_{a legal} Q(s, a) - Q(s, a_data))``

where ``TD`` is the Huber loss of ``Q(s, a_data)`` against ``r + gamma * Q_target(s',
argmax_{a' legal} Q(s', a'))`` (0 past the end). The action masks enter both: the logsumexp runs
over the legal actions only (an illegal action has no value to push down), and the next state's
argmax over its legal actions. The conservative term lowers the value of every legal move the
data did not take relative to the one it took, so the greedy policy stays near the data's moves
where the data says nothing about the others.

The transitions are each seat's own: a decision with a choice leads to the same seat's next
decision with a choice in the same game (the other seats' moves and the forced moves are the
environment's), and the seat's last decision ends its episode with the reward its final return
(the dataset's ``returns``: the task's reward); all other rewards are 0. The network is the
behaviour clone's MLP with one output per action, and is saved in the same numpy policy format,
so ``jax:<path>`` plays its masked argmax: the greedy policy of the learned values.

Training needs torch (the ``train`` extra).
"""

from __future__ import annotations

import copy
import dataclasses
import pathlib
import time
from typing import Any

import numpy as np

from tabletop_gym.tasks.datasets.cloning import (
    agreement,
    decisions,
    folded,
    import_torch,
    mlp,
    save_network,
    single_thread,
)
from tabletop_gym.tasks.datasets.games import GameDataset


@dataclasses.dataclass(frozen=True)
class CQLReport:
    """What a CQL run did.

    Attributes:
        train_decisions: Decisions with a choice it was fitted to.
        valid_decisions: Held-out decisions with a choice.
        train_accuracy: Share of the fitted decisions whose recorded move is the greedy move.
        valid_accuracy: The same on the held-out games.
        td_loss: The last epoch's mean TD (Huber) loss.
        conservative_loss: The last epoch's mean conservative term (before ``alpha``).
        seconds: Wall time of the fit.
    """

    train_decisions: int
    valid_decisions: int
    train_accuracy: float
    valid_accuracy: float
    td_loss: float
    conservative_loss: float
    seconds: float


def transitions(game: np.ndarray, seat: np.ndarray, returns: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Each decision's next decision of the same seat in the same game, and its reward.

    Args:
        game: Game index by decision (decisions in file order: by game, then by step).
        seat: The acting seat by decision.
        returns: Every seat's final return by decision, ``(N, players)``.

    Returns:
        ``(next, reward)``: ``next[i]`` is the index of the acting seat's next decision in the
        same game, or -1 where decision ``i`` is its last (then ``reward[i]`` is the seat's
        final return; every other reward is 0).
    """
    n = len(game)
    order = np.lexsort((np.arange(n), seat, game))  # by game, seat, then file order
    same = (game[order][1:] == game[order][:-1]) & (seat[order][1:] == seat[order][:-1])
    nxt = np.full(n, -1, np.int64)
    nxt[order[:-1][same]] = order[1:][same]
    reward = np.where(nxt < 0, returns[np.arange(n), seat], 0.0).astype(np.float32)
    return nxt, reward


def conservative_term(torch: Any, q: Any, mask: Any, action: Any) -> Any:
    """CQL(H)'s term per row: ``logsumexp`` of ``q`` over the legal actions minus ``q[action]``.

    Args:
        torch: The torch module.
        q: Action values ``(B, actions)``.
        mask: Legal actions ``(B, actions)`` bool.
        action: The data's actions ``(B,)`` int64.
    """
    legal = q.masked_fill(~mask, float("-inf"))
    taken = q.gather(1, action[:, None])[:, 0]
    return torch.logsumexp(legal, dim=1) - taken


def fit_cql(
    dataset: GameDataset,
    out: str | pathlib.Path,
    hidden: tuple[int, ...] = (256, 256),
    epochs: int = 10,
    batch_size: int = 256,
    lr: float = 3e-4,
    alpha: float = 1.0,
    gamma: float = 1.0,
    target_every: int = 500,
    seed: int = 0,
) -> CQLReport:
    """Fit masked discrete CQL to the dataset's decisions and save the greedy policy as ``out``.

    Args:
        dataset: A games dataset (every seat's decisions are used).
        out: The checkpoint to write (``.npz``; ``jax:<out>`` plays it).
        hidden: Widths of the hidden layers (ReLU).
        epochs: Passes over the training decisions.
        batch_size: Decisions per Adam step.
        lr: Adam's step size.
        alpha: Weight of the conservative term (d3rlpy's default, 1).
        gamma: Discount per own decision (the reward comes at the end of the game).
        target_every: Adam steps between copies of the network to the target network.
        seed: Seeds the initial weights and the batch order.

    Raises:
        ValueError: On bad settings, or a dataset with fewer than two games.
    """
    torch = import_torch("offline RL (CQL)")
    if (epochs < 1 or batch_size < 1 or lr <= 0 or alpha < 0 or not 0 <= gamma <= 1
            or target_every < 1 or not hidden or min(hidden) < 1):
        raise ValueError(f"epochs, batch_size, lr, target_every and every hidden width must be "
                         f"positive, alpha at least 0 and gamma in [0, 1]; got epochs={epochs}, "
                         f"batch_size={batch_size}, lr={lr}, target_every={target_every}, "
                         f"hidden={hidden}, alpha={alpha}, gamma={gamma}")
    data = decisions(dataset)
    n_train = data.n_train
    nxt, reward = transitions(data.game, data.seat, data.returns)
    torch.manual_seed(seed)
    net = mlp(torch, data.size, hidden, int(dataset.metadata["num_actions"]))
    target = copy.deepcopy(net)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    mt = torch.from_numpy(data.mask)
    at = torch.from_numpy(data.action)
    rt = torch.from_numpy(reward)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    with single_thread(torch):
        for _ in range(epochs):
            td_sum = cons_sum = 0.0
            batches = np.array_split(rng.permutation(n_train), max(1, n_train // batch_size))
            for chunk in batches:
                idx = torch.from_numpy(chunk)
                q = net(torch.from_numpy(data.inputs(chunk)))
                taken = q.gather(1, at[idx][:, None])[:, 0]
                y = rt[idx].clone()
                after = nxt[chunk]
                has = after >= 0
                if has.any():
                    with torch.no_grad():
                        later = after[has]
                        s2 = torch.from_numpy(data.inputs(later))
                        m2 = mt[torch.from_numpy(later)]
                        # Double DQN: the online network picks, the target network values.
                        best = net(s2).masked_fill(~m2, float("-inf")).argmax(dim=1)
                        value = target(s2).gather(1, best[:, None])[:, 0]
                        y[torch.from_numpy(has)] += gamma * value
                td = torch.nn.functional.smooth_l1_loss(taken, y)
                cons = conservative_term(torch, q, mt[idx], at[idx]).mean()
                loss = td + alpha * cons
                opt.zero_grad()
                loss.backward()
                opt.step()
                td_sum += td.item()
                cons_sum += cons.item()
                steps += 1
                if steps % target_every == 0:
                    target.load_state_dict(net.state_dict())
    seconds = time.perf_counter() - start

    weights = folded(net, data)
    report = CQLReport(n_train, len(data.rows) - n_train,
                       agreement(weights, data, slice(0, n_train)),
                       agreement(weights, data, slice(n_train, len(data.rows))),
                       td_sum / len(batches), cons_sum / len(batches), round(seconds, 2))
    save_network(out, weights, dataset, data, hidden, seed, {
        "method": "discrete CQL(H) with action masks (double DQN, Huber TD loss, Adam)",
        "epochs": epochs, "batch_size": batch_size, "lr": lr, "alpha": alpha, "gamma": gamma,
        "target_every": target_every, "reward": "the acting seat's final return, at its last "
        "decision with a choice", **dataclasses.asdict(report)})
    return report
