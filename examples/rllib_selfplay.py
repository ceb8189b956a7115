"""Multi-agent PPO self-play on Ray RLlib, on this machine or a Ray cluster (docs/scale-out.md).

Every seat is an RLlib agent with the action-masking module, so no illegal action is ever
sampled. ``--mapping shared`` trains one policy for all seats, ``per_seat`` one per seat, and
``pool`` a learner against frozen snapshots of itself refreshed every ``--refresh-every``
iterations. One progress line per iteration; the checkpoint goes under ``runs/``; at the end
the policy restored from it plays the random and the heuristic bot with seats rotated, and the
table with 95 % intervals is printed.

Needs the ``rllib`` extra in a venv of its own (Ray pins its gymnasium)::

    python -m venv .venv-rllib
    .venv-rllib/bin/pip install torch==2.13.0 && .venv-rllib/bin/pip install -e ".[rllib]"
    .venv-rllib/bin/python examples/rllib_selfplay.py --env rapa_nui --iterations 2

On a cluster: ``ray start --head`` on one machine, ``ray start --address=<head>:6379`` on the
others, then ``--address auto`` (on a cluster node) or ``--address ray://<head>:10001``.
"""

from __future__ import annotations

import argparse

from tabletop_gym.integrations.rllib import MAPPINGS, selfplay


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="rapa_nui", help="positano or rapa_nui")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--num-env-runners", type=int, default=0,
                        help="Ray actors stepping envs (0: in this process)")
    parser.add_argument("--envs-per-runner", type=int, default=8)
    parser.add_argument("--address", default=None,
                        help="a running Ray cluster: auto or ray://host:10001 (default: local)")
    parser.add_argument("--mapping", default="shared", choices=MAPPINGS)
    parser.add_argument("--pool-size", type=int, default=4)
    parser.add_argument("--refresh-every", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=4000,
                        help="env steps per training iteration")
    parser.add_argument("--eval-games", type=int, default=40)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds of training")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs")
    args = parser.parse_args(argv)

    selfplay(
        game=args.env, num_players=args.players, iterations=args.iterations,
        mapping=args.mapping, num_env_runners=args.num_env_runners,
        envs_per_runner=args.envs_per_runner, address=args.address, out=args.out,
        seed=args.seed, eval_games=args.eval_games, pool_size=args.pool_size,
        refresh_every=args.refresh_every, time_limit=args.time_limit,
        hparams={"train_batch_size_per_learner": args.batch_size,
                 "minibatch_size": min(500, args.batch_size)},
    )


if __name__ == "__main__":
    main()
