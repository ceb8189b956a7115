"""Every configuration the generic tests run over."""

from __future__ import annotations

RAPA_NUI = [{"num_players": n} for n in (2, 3, 4)]
POSITANO = [{"num_players": n} for n in (1, 2, 3, 4, 5, 6)] + [{"num_players": 4, "board_size": 5}]
POSITANO_IDS = ["1p", "2p", "3p", "4p", "5p", "6p", "4p5x5"]

ENGINE_CONFIGS = [("rapa_nui", c) for c in RAPA_NUI] + [("positano", c) for c in POSITANO]


def config_id(item) -> str:
    game, cfg = item
    return game + "-" + "-".join(f"{k}{v}" for k, v in cfg.items())


def raw_env(game: str, **kwargs):
    """A raw AEC env of ``game``."""
    if game == "rapa_nui":
        from tabletop_gym.envs import rapa_nui_v0

        return rapa_nui_v0.raw_env(**kwargs)
    from tabletop_gym.envs import positano_v0

    return positano_v0.raw_env(**kwargs)


def wrapped_env(game: str, **kwargs):
    """The public (order-enforced) AEC env of ``game``."""
    if game == "rapa_nui":
        from tabletop_gym.envs import rapa_nui_v0

        return rapa_nui_v0.env(**kwargs)
    from tabletop_gym.envs import positano_v0

    return positano_v0.env(**kwargs)
