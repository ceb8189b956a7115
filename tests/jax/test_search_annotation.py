"""Games datasets annotated by the batched ``search:`` agent instead of the guided ISMCTS.

The search runs with ``worlds=2``; its width is set to 64, so every legal move of Rapa Nui (45
actions) is a candidate and gets a value.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from tabletop_gym.tasks.datasets.games import (
    GameDataset,
    annotation_label,
    annotation_search,
    check_replay,
    write_games,
)

pytest.importorskip("pyarrow")

SAMPLE = pathlib.Path(__file__).resolve().parents[1] / "data" / "games" / "rapa_nui_2p"
SPEC = "search:heuristic-net?worlds=2"


@pytest.fixture(scope="module")
def annotated(tmp_path_factory: pytest.TempPathFactory) -> GameDataset:
    out = tmp_path_factory.mktemp("search") / "annotated"
    return write_games(out, "RapaNui-2p-SelfPlay-v0", "heuristic", games=2, seed=0,
                       annotate=SPEC, annotated_games=2)


def test_the_annotating_search_takes_every_legal_move_as_a_candidate() -> None:
    assert annotation_search(SPEC) == "search:heuristic-net?worlds=2&width=64"
    assert annotation_search("search:jax-ppo?worlds=16&width=4") == (
        "search:jax-ppo?worlds=16&width=64")
    assert annotation_search(8) == "ismcts:8:guided"
    assert annotation_label({"search": "ismcts:8:guided", "simulations": 8}) == "8 simulations"
    assert annotation_label({"search": "search:jax-ppo?worlds=16&width=64"}) == (
        "`search:jax-ppo?worlds=16&width=64`")
    # search:best means other settings at each table; a dataset names the ones that played.
    with pytest.raises(ValueError, match="stands for different ones at each table size"):
        annotation_search("search:best")


def test_the_annotation_states_the_value_the_search_was_given() -> None:
    from tabletop_gym.tasks.datasets.games import ABOVE_FORMULA, VALUE_FORMULA, _annotation

    above = annotation_search("search:heuristic-net?worlds=2&value=above")
    assert above == "search:heuristic-net?worlds=2&width=64&value=above"
    assert ABOVE_FORMULA in _annotation(above, above, 1)["value"]
    assert VALUE_FORMULA in _annotation(SPEC, annotation_search(SPEC), 1)["value"]


def test_every_legal_move_of_every_choice_gets_a_search_value(annotated: GameDataset) -> None:
    meta = annotated.metadata["annotation"]
    assert meta["search"] == "search:heuristic-net?worlds=2&width=64"
    assert meta["worlds"] == 2 and meta["annotated_games"] == 2 and "simulations" not in meta
    assert "tabletop_gym.jax.search" in meta["value"]
    arr = annotated.arrays()
    choice = arr["action_mask"].sum(axis=1) > 1
    assert np.array_equal(arr["annotated"], choice)  # both games, every decision with a choice
    for row in annotated.decisions():
        if row["search_values"] is None:
            continue
        mask = row["action_mask"].astype(bool)
        # A value at every legal action and nowhere else (the reader puts NaN where none is).
        assert np.array_equal(~np.isnan(row["search_values"]), mask)
        values = row["search_values"][mask]
        # A value is a mean over 2 worlds of (1 - w) * win + w * margin term, both in [0, 1].
        assert ((values >= 0) & (values <= 1)).all()
    # Two seats of a finished game, each value is one seat's: some differ between moves.
    assert np.nanstd(arr["search_values"][arr["annotated"]]) > 0


def test_annotating_changes_no_move_and_replays_exactly(annotated: GameDataset) -> None:
    # The committed sample is the same two first games (heuristic both seats, seed 0), annotated
    # by the ISMCTS at 24 simulations: the annotator has its own generator, so the play is equal.
    sample = list(GameDataset(SAMPLE).games())[:2]
    for mine, theirs in zip(annotated.games(), sample, strict=True):
        assert np.array_equal(mine.actions, theirs.actions)
        assert np.array_equal(mine.observations, theirs.observations)
    assert check_replay(annotated) == len(annotated)


def test_a_dataset_of_another_search_is_refused_by_the_baseline(annotated: GameDataset) -> None:
    from tabletop_gym.tasks.datasets.offline import offline_baseline

    with pytest.raises(ValueError, match=r"made with other settings: annotate "
                                         r"'search:heuristic-net\?worlds=2&width=64' \(asked: "
                                         r"'search:heuristic-net\?worlds=4&width=64'\)"):
        offline_baseline("RapaNui-2p-SelfPlay-v0", "heuristic", 2, "RapaNui-2p-vsHeuristic-v0",
                         method="values", annotate="search:heuristic-net?worlds=4",
                         annotated_games=2, data=annotated.path.parent)
