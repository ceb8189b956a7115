"""Malformed ``jax:`` checkpoints are refused when they are loaded (issue 39 item 2).

Every file here is built by hand with numpy and zipfile (no JAX): the loader must give a
``ValueError`` naming what is wrong before anything plays, and the CLI one line on stderr.
"""

from __future__ import annotations

import io
import json
import re
import zipfile

import numpy as np
import pytest

from tabletop_gym import cli
from tabletop_gym.agents.jax_policy import (
    FORMAT,
    VERSION,
    JaxPolicyAgent,
    array_shapes,
    load_policy,
    save_policy,
)
from tabletop_gym.core.records import make_game

OBS, ACTIONS = 213, 45  # Rapa Nui 2p: the reference observer's length and the action ids


def _meta(**changes):
    meta = {"format": FORMAT, "version": VERSION, "game": "rapa_nui", "num_players": 2,
            "config": make_game("rapa_nui", {"num_players": 2}).config.to_dict(),
            "observation_size": OBS, "num_actions": ACTIONS, "hidden": [8],
            "activation": "tanh"}
    meta.update(changes)
    return meta


def _arrays(meta=None, seed=0):
    rng = np.random.default_rng(seed)
    return {name: rng.normal(size=shape).astype(np.float32)
            for name, shape in array_shapes(meta or _meta()).items()}


def _npy(value) -> bytes:
    if isinstance(value, bytes):
        return value
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(value), allow_pickle=False)
    return buf.getvalue()


def _write(path, meta, arrays):
    """A .npz as np.savez lays it out, with any entry given as raw .npy bytes."""
    blob = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("metadata.npy", _npy(np.frombuffer(blob, np.uint8)))
        for name, value in arrays.items():
            zf.writestr(f"{name}.npy", _npy(value))
    return path


def _huge_header() -> bytes:
    # A header that declares 2**40 float32 numbers (4 TiB) in front of 16 bytes of data.
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f4", "fortran_order": False, "shape": (2**40,)})
    return buf.getvalue() + bytes(16)


def _valid(tmp_path):
    return _write(tmp_path / "ok.npz", _meta(), _arrays())


def _case(name, tmp_path):
    """The path of malformed file ``name`` and the message its ValueError must contain."""
    p = tmp_path / "e.npz"
    arrays = _arrays()
    if name == "empty":
        p.write_bytes(b"")
        return p, "is empty"
    if name == "truncated_zip":
        data = _valid(tmp_path).read_bytes()
        p.write_bytes(data[: len(data) // 2])
        return p, "is not a .npz jax policy checkpoint"
    if name == "corrupted_zip":
        data = bytearray(_valid(tmp_path).read_bytes())
        with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
            info = zf.getinfo("actor/hidden_0/kernel.npy")
        at = info.header_offset + 200  # inside the kernel's numbers, past both headers
        data[at:at + 8] = bytes(8)
        p.write_bytes(bytes(data))
        return p, "Bad CRC-32"
    if name == "npy_renamed":
        np.save(tmp_path / "a.npy", np.zeros(3, np.float32))
        p.write_bytes((tmp_path / "a.npy").read_bytes())
        return p, "is not a .npz jax policy checkpoint"
    if name == "metadata_not_json":
        return _write(p, b"\xff{", arrays), f"no {FORMAT!r} metadata"
    if name == "hidden_int":
        return _write(p, _meta(hidden=64), arrays), "'hidden' must be a list of layer widths"
    if name == "hidden_null":
        return _write(p, _meta(hidden=None), arrays), "'hidden' must be a list of layer widths"
    if name == "hidden_zero":
        return _write(p, _meta(hidden=[0]), arrays), "'hidden' must be a list of layer widths"
    if name == "activation_list":
        return _write(p, _meta(activation=["tanh"]), arrays), "'activation' is ['tanh']"
    if name == "num_actions_one":
        return _write(p, _meta(num_actions=1), arrays), "'num_actions' is 1; rapa_nui"
    if name == "observation_size":
        return _write(p, _meta(observation_size=212), arrays), "'observation_size' is 212"
    if name == "other_game":
        return _write(p, _meta(game="chess"), arrays), "'game' 'chess' is not a known game"
    if name == "bad_config":
        return (_write(p, _meta(config={"num_players": 9}), arrays),
                "'config' is not a rapa_nui configuration")
    if name == "bias_0d":
        arrays["actor/out/bias"] = np.float32(0)
        return _write(p, _meta(), arrays), "'actor/out/bias' has shape (); its metadata"
    if name == "header_2_40":
        arrays["actor/hidden_0/bias"] = _huge_header()
        return _write(p, _meta(), arrays), "'actor/hidden_0/bias' has shape (1099511627776,)"
    if name == "size_lie":
        # the right shape declared, the data cut short: refused before reading
        arrays["actor/hidden_0/bias"] = _npy(np.zeros(8, np.float32))[:-4]
        return _write(p, _meta(), arrays), "declares 32 bytes of data but holds 28"
    if name == "string_kernel":
        arrays["actor/out/kernel"] = np.full((8, ACTIONS), "x")
        return _write(p, _meta(), arrays), "'actor/out/kernel' is of dtype <U1"
    if name == "float64_kernel":
        arrays["actor/out/kernel"] = arrays["actor/out/kernel"].astype(np.float64)
        return _write(p, _meta(), arrays), "'actor/out/kernel' is of dtype float64"
    if name == "transposed_kernel":
        arrays["actor/hidden_0/kernel"] = arrays["actor/hidden_0/kernel"].T
        return _write(p, _meta(), arrays), "'actor/hidden_0/kernel' has shape (8, 213)"
    if name == "output_one_action":
        arrays["actor/out/kernel"] = np.ones((8, 1), np.float32)
        arrays["actor/out/bias"] = np.zeros(1, np.float32)
        return _write(p, _meta(), arrays), "'actor/out/kernel' has shape (8, 1)"
    if name == "missing_critic":
        del arrays["critic/out/bias"]
        return _write(p, _meta(), arrays), "lacks the entry 'critic/out/bias'"
    if name == "not_finite":
        arrays["actor/out/bias"][3] = np.nan
        return _write(p, _meta(), arrays), "'actor/out/bias' holds values that are not finite"
    raise AssertionError(name)


CASES = ["empty", "truncated_zip", "corrupted_zip", "npy_renamed", "metadata_not_json",
         "hidden_int", "hidden_null", "hidden_zero", "activation_list", "num_actions_one",
         "observation_size", "other_game", "bad_config", "bias_0d", "header_2_40", "size_lie",
         "string_kernel", "float64_kernel", "transposed_kernel", "output_one_action",
         "missing_critic", "not_finite"]


@pytest.mark.parametrize("name", CASES)
def test_a_malformed_checkpoint_is_refused_when_loaded(name, tmp_path):
    path, message = _case(name, tmp_path)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_policy(path)
    with pytest.raises(ValueError):
        JaxPolicyAgent(path, game_name="rapa_nui", num_players=2)


@pytest.mark.parametrize("name", CASES)
def test_the_cli_says_what_is_wrong_in_one_line(name, tmp_path, capsys):
    path, message = _case(name, tmp_path)
    code = cli.main(["eval", "--game", "rapa_nui", "--players", "2", "--candidate",
                     f"jax:{path}", "--games", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("tabletop-gym eval: error: ") and err.count("\n") == 1
    assert message in err and "Traceback" not in err


def test_extra_entries_are_never_read(tmp_path):
    # An entry the format does not name is left alone, even one that would be huge.
    p = tmp_path / "extra.npz"
    with zipfile.ZipFile(_valid(tmp_path)) as src, zipfile.ZipFile(p, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("opponent/huge.npy", _huge_header())
    arrays, _ = load_policy(p)
    assert sorted(arrays) == sorted(array_shapes(_meta()))


def test_a_valid_checkpoint_plays_the_best_legal_logit(tmp_path):
    # No hidden layer: the logits are the observation times the kernel plus the bias. With a
    # zero kernel they are the bias, so the agent plays the legal id of the largest bias.
    meta = _meta(hidden=[])
    arrays = _arrays(meta)
    arrays["actor/out/kernel"][:] = 0
    arrays["actor/out/bias"][:] = np.arange(ACTIONS, dtype=np.float32) % 7  # 6 at ids 6, 13, ...
    path = save_policy(tmp_path / "linear.npz", arrays,
                       {k: v for k, v in meta.items() if k not in ("format", "version")})
    agent = JaxPolicyAgent(path, game_name="rapa_nui", num_players=2, observation_size=OBS)
    assert agent.num_actions == ACTIONS and agent.input_size == OBS
    mask = np.zeros(ACTIONS, np.int8)
    mask[[2, 13, 20, 40]] = 1  # biases 2, 6, 6, 5: the lowest id of the largest logit
    assert agent.act({"observation": np.ones(OBS, np.float32), "action_mask": mask}) == 13
    loaded, _ = load_policy(path)
    assert not loaded["actor/out/bias"].flags.writeable


def test_save_policy_refuses_what_load_would_and_writes_nothing(tmp_path):
    meta = {k: v for k, v in _meta().items() if k not in ("format", "version")}
    arrays = _arrays()
    arrays["actor/out/kernel"] = np.ones((8, 1), np.float32)
    with pytest.raises(ValueError, match=r"'actor/out/kernel' has shape \(8, 1\)"):
        save_policy(tmp_path / "bad.npz", arrays, meta)
    with pytest.raises(ValueError, match="'activation' is 'sigmoid'"):
        save_policy(tmp_path / "bad.npz", _arrays(), {**meta, "activation": "sigmoid"})
    assert not (tmp_path / "bad.npz").exists()


def test_a_policy_without_a_critic_says_so_and_holds_the_actor_only(tmp_path):
    # A behaviour clone learns moves, not values: "critic": false and no critic/ arrays.
    meta = _meta(critic=False)
    arrays = _arrays(meta)
    assert sorted(arrays) == ["actor/hidden_0/bias", "actor/hidden_0/kernel", "actor/out/bias",
                              "actor/out/kernel"]
    loaded, read = load_policy(_write(tmp_path / "actor.npz", meta, arrays))
    assert sorted(loaded) == sorted(arrays) and read["critic"] is False
    # Critic arrays beside "critic": false are entries the format does not name: never read.
    loaded, _ = load_policy(_write(tmp_path / "extra.npz", meta, _arrays()))
    assert sorted(loaded) == sorted(arrays)
    # No critic without saying so, and a critic that is no boolean: refused by name.
    with pytest.raises(ValueError, match="lacks the entry 'critic/hidden_0/kernel'"):
        load_policy(_write(tmp_path / "missing.npz", _meta(), arrays))
    with pytest.raises(ValueError, match="metadata 'critic' must be true or false"):
        load_policy(_write(tmp_path / "odd.npz", _meta(critic="no"), arrays))
