"""The games the web app holds: live games (humans and agents) and replays of game records.

Nothing here knows about HTTP: :class:`GameHub` is the server's whole state, and the Starlette
app (:mod:`tabletop_gym.web.app`) only turns requests into its calls and its errors into status
codes. Every view a seat gets is built from what that seat may know: its own token is the only
way to see its hand, and without a token (or with a token that is not one of the game's) only the
public view is returned.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import random
import secrets
import threading
from typing import Any

import numpy as np

from tabletop_gym.agents.base import choose_action
from tabletop_gym.agents.kinds import make_agent
from tabletop_gym.agents.llm import transcript_lines
from tabletop_gym.arena.envs import people_env
from tabletop_gym.core.aec import TabletopAECEnv
from tabletop_gym.core.game import ConfigError, GameConfig, State, as_int, shown
from tabletop_gym.core.records import GameRecord
from tabletop_gym.provenance import metadata
from tabletop_gym.registry import game_names, game_spec

HUMAN = "human"
"""The seat kind of a person playing in the browser."""

AGENT_NAMES = ("random", "heuristic", "ismcts:200", "ismcts:200:heuristic", "ppo")
"""Agent names offered in the page (any ``ismcts:N[:rollout]`` and checkpoint path also work)."""

MAX_GAMES = 200
"""Games held at once; the oldest finished game is dropped to make room."""

MAX_SEED = 2**63 - 1


class WebError(Exception):
    """A request the hub refuses; nothing changed.

    Attributes:
        status: The HTTP status the app answers with.
        message: What was wrong and what is allowed.
    """

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def env_class(game: str) -> type[TabletopAECEnv]:
    """The AEC env class of ``game`` (``"positano"`` or ``"rapa_nui"``).

    Raises:
        WebError: 400 for an unknown game.
    """
    if not isinstance(game, str) or game not in game_names():
        raise WebError(400, f"unknown game {shown(game)}; choose one of {sorted(game_names())}")
    cls: type[TabletopAECEnv] = game_spec(game).envs().raw_env
    return cls


def config_fields(config_class: type[GameConfig]) -> list[dict[str, Any]]:
    """The switches of a game configuration, for the new-game form.

    Each entry has ``name``, ``default`` and ``type`` (``bool``, ``int``, ``str`` or ``list``),
    and ``choices`` or ``range`` where the field declares them.
    """
    out = []
    for f in dataclasses.fields(config_class):
        default: Any = f.default  # every config switch has a plain default
        kind = ("bool" if isinstance(default, bool) else "int" if isinstance(default, int)
                else "str" if isinstance(default, str) else "list")
        entry: dict[str, Any] = {"name": f.name, "type": kind,
                                 "default": list(default) if kind == "list" else default}
        for key in ("choices", "range"):
            if key in f.metadata:
                entry[key] = list(f.metadata[key])
        out.append(entry)
    return out


def catalog() -> dict[str, Any]:
    """Every game with its configuration switches, and the agent names to offer."""
    return {
        "games": {name: {"config": config_fields(env_class(name).game_class.config_class)}
                  for name in sorted(game_names())},
        "agents": [HUMAN, *AGENT_NAMES],
    }


def _agent(spec: str, env: TabletopAECEnv, rng: np.random.Generator) -> Any:
    """An agent from its name or a checkpoint path.

    Raises:
        WebError: 400 for an unknown name, a missing checkpoint or one that does not fit.
    """
    # A checkpoint is a file on the server's machine; only .zip files are loaded.
    if spec.endswith(".zip"):
        path = pathlib.Path(spec)
        if not path.is_file():
            raise WebError(400, f"checkpoint {spec!r} not found")
        try:
            from sb3_contrib import MaskablePPO
        except ImportError:
            raise WebError(400, 'loading a checkpoint needs the train extra: '
                                'pip install "tabletop-gym[train]"') from None
        try:
            model = MaskablePPO.load(str(path), device="cpu")
        except Exception as exc:  # a file that is not a model: the message says why
            raise WebError(400, f"checkpoint {str(path)!r} cannot be loaded: {exc}") from None
        want = tuple(getattr(model.observation_space, "shape", None) or ())
        if want != (env.observer.size,):
            raise WebError(400, f"checkpoint {str(path)!r} reads observations of shape {want}; "
                                f"this game's seats see ({env.observer.size},): it was trained "
                                "on another game or configuration")
        return make_agent(model, env.game, env.observer, rng)
    try:
        return make_agent(spec, env.game, env.observer, rng)
    except (ValueError, ImportError) as exc:
        raise WebError(400, str(exc)) from None


@dataclasses.dataclass
class LogEntry:
    """One action as each viewer may know it.

    Attributes:
        seat: The seat that acted.
        texts: What the action was, seen by the public (index 0) and by each seat (index 1 + s).
        events: Public lines on what the action revealed.
    """

    seat: int
    texts: list[str]
    events: list[str]


class LiveGame:
    """One game held by the server: the env, the agents, the seat tokens and the public log.

    Args:
        game: ``"positano"`` or ``"rapa_nui"``.
        config: The game's config switches.
        seats: One entry per seat: ``"human"`` or an agent spec.
        seed: Seed of the deal and of the agents' randomness.

    Raises:
        WebError: 400 for anything that is not allowed (as it came from a request: every
            argument is checked, with a message saying what is allowed).
    """

    def __init__(self, game: Any, config: Any, seats: Any, seed: Any):
        cls = env_class(game)
        if not isinstance(config, dict):
            raise WebError(400, f"config must be an object of switches, got {shown(config)}")
        kwargs: dict[str, Any] = dict(config)
        try:
            probe = cls.game_class(config)
        except (ConfigError, TypeError, ValueError) as exc:
            raise WebError(400, f"bad config: {exc}") from None
        n = probe.num_players
        if not isinstance(seats, list) or len(seats) != n or not all(
                isinstance(s, str) and s.strip() for s in seats):
            raise WebError(400, f"seats must list {n} entries (one per seat of this "
                                f"{n}-player game), each 'human' or an agent name, got "
                                f"{shown(seats)}")
        seed_int = as_int(seed)
        if seed_int is None or not 0 <= seed_int <= MAX_SEED:
            raise WebError(400, f"seed must be an integer in 0..{MAX_SEED}, got {shown(seed)}")
        self.env = people_env(game, **kwargs)
        self.env.reset(seed=seed_int)
        rng = np.random.default_rng(seed_int)
        self.seats = [s.strip() for s in seats]
        self.bots = {q: _agent(s, self.env, rng) for q, s in enumerate(self.seats) if s != HUMAN}
        self.tokens = {q: secrets.token_urlsafe(24) for q, s in enumerate(self.seats)
                       if s == HUMAN}
        self.game = game
        self.config = self.env.game.config.to_dict()
        self.seed = seed_int
        self.log: list[LogEntry] = []
        self.lock = threading.Lock()
        self.record_path: pathlib.Path | None = None

    # --- who is asking --------------------------------------------------------------------------

    def seat_of_token(self, token: str | None) -> int | None:
        """The seat a token belongs to; ``None`` (the public view) for no token or a foreign one."""
        if not token:
            return None
        for seat, own in self.tokens.items():
            if secrets.compare_digest(own.encode(), token.encode()):
                return seat
        return None

    @property
    def state(self) -> State:
        """The engine state (hidden parts included: never sent as it is)."""
        return self.env.game_state

    def to_act(self) -> int | None:
        """The seat to act, or ``None`` once the game is over."""
        if self.state.is_terminal():
            return None
        return self.env.seat_of(self.env.agent_selection)

    # --- changes --------------------------------------------------------------------------------

    def _apply(self, action: int) -> None:
        env, state = self.env, self.state
        seat = self.env.seat_of(env.agent_selection)
        n = env.game.num_players
        texts = [state.public_action_string(action, v) for v in [None, *range(n)]]
        before = state.clone()
        env.step(action)
        events = list(type(env).narrator(before, action, self.state))
        self.log.append(LogEntry(seat, texts, events))

    def move(self, token: str | None, action: Any) -> None:
        """Apply a human's action.

        Raises:
            WebError: 403 without a token of this game, 409 when it is not that seat's turn or
                the game is over, 400 for an action that is not an integer, 422 for an illegal
                one. Nothing changes when it raises.
        """
        seat = self.seat_of_token(token)
        if seat is None:
            raise WebError(403, "a move needs the token of a human seat of this game "
                                "(the X-Seat-Token header)")
        a = as_int(action)
        if a is None:
            raise WebError(400, f"'action' must be an integer action id, got {shown(action)}")
        with self.lock:
            actor = self.to_act()
            if actor is None:
                raise WebError(409, "the game is over; no more moves")
            if actor != seat:
                raise WebError(409, f"not your turn: seat {actor} is to act, you are seat {seat}")
            legal = self.env.legal_actions()
            if a not in legal:
                raise WebError(422, f"action {a} is not legal now; legal actions: {legal}")
            self._apply(a)

    def advance(self) -> int:
        """Let the agent to act make its move; return the seat that moved.

        Raises:
            WebError: 409 when the game is over or a human is to act.
        """
        with self.lock:
            actor = self.to_act()
            if actor is None:
                raise WebError(409, "the game is over; no more moves")
            if actor not in self.bots:
                raise WebError(409, f"seat {actor} is a human seat: it moves with its own token")
            agent = self.env.agent_of(actor)
            self._apply(choose_action(self.bots[actor], self.env, agent))
            return actor

    # --- what is sent ---------------------------------------------------------------------------

    def view(self, token: str | None) -> dict[str, Any]:
        """Everything the holder of ``token`` may know: board, legal moves, log, scores."""
        seat = self.seat_of_token(token)
        with self.lock:
            state = self.state
            cls = type(self.env)
            actor = self.to_act()
            over = actor is None
            legal: list[dict[str, Any]] = []
            if seat is not None and actor == seat:
                legal = [{"action": a, "label": state.action_to_string(a, seat)}
                         for a in self.env.legal_actions()]
            out: dict[str, Any] = {
                "id": None,
                "game": self.game,
                "config": self.config,
                "seats": self.seats,
                "you": seat,
                "to_act": actor,
                "to_act_kind": None if over else (HUMAN if actor not in self.bots else "agent"),
                "phase": state.phase(),
                "actions": len(self.log),
                "over": over,
                "svg": cls.scene(state, seat).svg(),
                "legal": legal,
                "log": [{"n": i + 1, "seat": e.seat, "text": e.texts[0 if seat is None else
                                                                       1 + seat],
                         "events": e.events} for i, e in enumerate(self.log)],
            }
            if over:
                out["scores"] = [float(x) for x in state.scores()]
                out["winners"] = list(state.winners())
            return out

    def record(self) -> GameRecord:
        """The game record (config, seed, actions), once the game is over.

        Raises:
            WebError: 409 while the game runs (its seed fixes every hidden card).
        """
        with self.lock:
            if not self.state.is_terminal():
                raise WebError(409, "the record is available once the game is over (its seed "
                                    "fixes every hidden card and tile)")
            from tabletop_gym.agents.llm import record_with_logs

            # with the transcripts of language-model seats (agent_logs)
            rec = record_with_logs(self.env, {self.env.agent_of(q): bot
                                              for q, bot in self.bots.items()})
        rec.provenance = metadata(seats=list(self.seats), source="web")
        return rec


class Replay:
    """A saved game record stepped through: the state after each action, and the log.

    Args:
        record: The record to replay.
        name: Where it came from (a file name), shown in the page.
    """

    def __init__(self, record: GameRecord, name: str):
        self.record = record
        self.name = name
        self.cls = env_class(record.game)
        try:
            game = record.make_game()
            state = game.new_initial_state(random.Random(record.seed))
        except ValueError as exc:
            raise WebError(400, f"record cannot be replayed: {exc}") from None
        self.states = [state.clone()]
        self.actors: list[int] = []
        for i, a in enumerate(record.actions):
            self.actors.append(state.current_player())
            try:
                state.apply_action(a)
            except ValueError as exc:
                raise WebError(400, f"record action {i} ({a}) cannot be replayed: {exc}") from None
            self.states.append(state.clone())
        self.num_players = game.num_players
        self.lock = threading.Lock()

    def view(self, step: Any, view: Any) -> dict[str, Any]:
        """The table after ``step`` actions seen by ``view`` (``"public"`` or a seat).

        Raises:
            WebError: 400 for a step or view that is out of range.
        """
        n_steps = len(self.record.actions)
        short = isinstance(step, str) and step.isdigit() and len(step) < 12
        k = int(step) if short else as_int(step)
        if k is None or not 0 <= k <= n_steps:
            raise WebError(400, f"step must be an integer in 0..{n_steps}, got {shown(step)}")
        seat: int | None
        if view in (None, "", "public"):
            seat = None
        else:
            seat = (int(view) if isinstance(view, str) and view.isdigit() and len(view) < 4
                    else as_int(view))
            if seat is None or not 0 <= seat < self.num_players:
                raise WebError(400, f"view must be 'public' or a seat 0..{self.num_players - 1}, "
                                    f"got {shown(view)}")
        with self.lock:
            log = []
            for i in range(k):
                before, after = self.states[i], self.states[i + 1]
                a = self.record.actions[i]
                log.append({"n": i + 1, "seat": self.actors[i],
                            "text": before.public_action_string(a, seat),
                            "events": list(self.cls.narrator(before, a, after)),
                            # a language-model seat's tries, as this view may read them
                            "llm": transcript_lines(self.record.agent_logs, i, seat)})
            state = self.states[k]
            out = {"name": self.name, "game": self.record.game, "config": self.record.config,
                   "step": k, "steps": n_steps, "view": "public" if seat is None else seat,
                   "num_players": self.num_players, "svg": self.cls.scene(state, seat).svg(),
                   "log": log, "over": state.is_terminal()}
            if state.is_terminal():
                out["scores"] = [float(x) for x in state.scores()]
                out["winners"] = list(state.winners())
            return out


class GameHub:
    """Every live game and replay of one server.

    Args:
        runs_dir: Where saved records are listed from (``runs/``), or ``None``.
        save_dir: Where finished games are written as records, or ``None``.
    """

    def __init__(self, runs_dir: pathlib.Path | None = None,
                 save_dir: pathlib.Path | None = None):
        self.runs_dir = runs_dir
        self.save_dir = save_dir
        self.games: dict[str, LiveGame] = {}
        self.replays: dict[str, Replay] = {}
        self.lock = threading.Lock()

    def _room(self, table: dict[str, Any]) -> None:
        if len(table) < MAX_GAMES:
            return
        for key, item in list(table.items()):
            if isinstance(item, Replay) or item.to_act() is None:
                del table[key]
                return
        raise WebError(503, f"the server holds {MAX_GAMES} running games; finish one first")

    def new_game(self, body: Any) -> dict[str, Any]:
        """Start a game from ``{"game", "config", "seats", "seed"}``; return its id and tokens."""
        if not isinstance(body, dict):
            raise WebError(400, "the body must be a JSON object with game, config, seats, seed")
        unknown = sorted(set(body) - {"game", "config", "seats", "seed"})
        if unknown:
            raise WebError(400, f"unknown field(s) {unknown}; allowed: config, game, seats, seed")
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        live = LiveGame(body.get("game"), body.get("config", {}), body.get("seats"), seed)
        with self.lock:
            self._room(self.games)
            gid = secrets.token_urlsafe(9)
            self.games[gid] = live
        return {"id": gid, "tokens": {str(q): t for q, t in live.tokens.items()},
                "seed": live.seed}

    def game(self, gid: str) -> LiveGame:
        """The live game ``gid``.

        Raises:
            WebError: 404 when there is none.
        """
        live = self.games.get(gid)
        if live is None:
            raise WebError(404, f"no game {gid!r} on this server")
        return live

    def view(self, gid: str, token: str | None) -> dict[str, Any]:
        """The view of game ``gid`` for the holder of ``token``."""
        out = self.game(gid).view(token)
        out["id"] = gid
        return out

    def move(self, gid: str, token: str | None, body: Any) -> dict[str, Any]:
        """Apply ``{"action": id}`` for the seat of ``token``; return the new view."""
        if not isinstance(body, dict) or set(body) != {"action"}:
            raise WebError(400, 'the body must be a JSON object {"action": <action id>}, got '
                                f"{shown(body)}")
        live = self.game(gid)
        live.move(token, body["action"])
        self._saved(gid, live)
        return self.view(gid, token)

    def advance(self, gid: str, token: str | None) -> dict[str, Any]:
        """Let the agent to act in game ``gid`` move; return the view of ``token``."""
        live = self.game(gid)
        live.advance()
        self._saved(gid, live)
        return self.view(gid, token)

    def _saved(self, gid: str, live: LiveGame) -> None:
        """Write a finished game's record into ``save_dir`` (once)."""
        if self.save_dir is None or live.record_path is not None or live.to_act() is not None:
            return
        self.save_dir.mkdir(parents=True, exist_ok=True)
        path = self.save_dir / f"{live.game}-{gid}.json"
        path.write_text(live.record().to_json(indent=1))
        live.record_path = path

    def list_games(self) -> list[dict[str, Any]]:
        """Id, game, seats and progress of every live game (public facts only)."""
        return [{"id": gid, "game": g.game, "seats": g.seats, "actions": len(g.log),
                 "over": g.to_act() is None} for gid, g in list(self.games.items())]

    # --- replays --------------------------------------------------------------------------------

    def records(self) -> list[str]:
        """The game records under ``runs_dir`` (paths relative to it), newest first."""
        if self.runs_dir is None or not self.runs_dir.is_dir():
            return []
        found = []
        for path in self.runs_dir.rglob("*.json"):
            # A record is small; big JSON files under runs/ are results tables, not records.
            if path.is_file() and path.stat().st_size < 2_000_000:
                text = path.read_text(errors="replace")
                if '"actions"' in text and '"seed"' in text and '"game"' in text:
                    found.append(path)
            if len(found) >= 500:
                break
        found.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        return [p.relative_to(self.runs_dir).as_posix() for p in found]

    def new_replay(self, body: Any) -> dict[str, Any]:
        """Open ``{"record": <record JSON object or text>}`` or ``{"path": <under runs_dir>}``."""
        if not isinstance(body, dict) or len(body) != 1 or not {"record", "path"} & set(body):
            raise WebError(400, 'the body must be {"record": <game record>} or '
                                '{"path": <a record listed under runs/>}')
        if "path" in body:
            text, name = self._read_listed(body["path"]), str(body["path"])
        else:
            raw = body["record"]
            text = raw if isinstance(raw, str) else json.dumps(raw)
            name = "uploaded record"
        try:
            rec = GameRecord.from_json(text)
        except ValueError as exc:
            raise WebError(400, f"not a game record: {exc}") from None
        replay = Replay(rec, name)
        with self.lock:
            self._room(self.replays)  # type: ignore[arg-type]
            rid = secrets.token_urlsafe(9)
            self.replays[rid] = replay
        return {"id": rid, "steps": len(rec.actions)}

    def _read_listed(self, rel: Any) -> str:
        if not isinstance(rel, str) or self.runs_dir is None:
            raise WebError(400, f"path must be one of the listed records, got {shown(rel)}")
        root = self.runs_dir.resolve()
        path = (root / rel).resolve()
        if not path.is_relative_to(root) or not path.is_file() or path.suffix != ".json":
            raise WebError(404, f"no record {rel!r} under the runs folder")
        return path.read_text()

    def replay(self, rid: str) -> Replay:
        """The replay ``rid``.

        Raises:
            WebError: 404 when there is none.
        """
        rep = self.replays.get(rid)
        if rep is None:
            raise WebError(404, f"no replay {rid!r} on this server")
        return rep
