"""Language-model agents: a strict harness that never invents a move and logs everything.

An :class:`LLMAgent` plays one seat from its text view (:mod:`tabletop_gym.text.view`: the
table, its private cards, the public history since its last decision and its numbered legal
moves). Per decision it sends the fixed system prompt (the game's rules summary,
:func:`tabletop_gym.text.rules.system_prompt`) and the view, and reads the answer with
:func:`tabletop_gym.text.moves.parse_move`. Every answer is classified ``legal``, ``illegal``,
``unparsable`` or ``no_answer`` (a timeout or an error of the backend). A non-legal answer gets
up to ``rethinks`` more tries, each told why the last one was refused; after those the fallback
plays a seeded random legal move, flagged ``fallback`` in the log and counted in
:attr:`LLMAgent.stats`, never silently.

Backends:

* any callable ``messages -> str`` (:class:`CallableBackend`; a scripted model in tests);
* :class:`OpenAIBackend`: the official ``openai`` client against any OpenAI-compatible
  chat-completions server (vLLM, llama.cpp's server, Ollama), with base URL, model,
  temperature, max tokens, seed and timeout; the API key is read from an environment variable
  (``OPENAI_API_KEY`` by default) and never written to a log or a record.

The spec ``llm:MODEL@BASE_URL`` (options as a query string,
``llm:qwen2.5@http://127.0.0.1:8000/v1?temperature=0.2&timeout=20``) makes one everywhere agents
go (:func:`tabletop_gym.agents.kinds.make_agent`), see :func:`parse_spec`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import re
import sys
import time
import urllib.parse
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_gym.text.moves import (
    CLASSES,
    ILLEGAL,
    LEGAL,
    NO_ANSWER,
    UNPARSABLE,
    other_move_names,
    parse_move,
    shown,
)
from tabletop_gym.text.probes import (
    NO_ANSWER as PROBE_NO_ANSWER,
    VALID,
    Belief,
    game_probes,
    parse_belief,
    probe_markdown,
    probe_rows,
    question,
    score,
    targets,
)
from tabletop_gym.text.rules import (
    LIST,
    PROMPT_VERSION,
    check_mode,
    rethink_prompt,
    system_prompt,
)
from tabletop_gym.text.view import TEXT_VIEW_VERSION, SeatTracker, TextObservation

Messages = list[dict[str, str]]
FALLBACKS = ("random",)
"""What is played after the last rethink: ``"random"``, a seeded random legal move."""


@dataclasses.dataclass
class Reply:
    """One answer of a backend.

    Attributes:
        text: The answer's text (``None``: no answer came).
        error: Why no answer came (a timeout, a refused connection, an HTTP error, a malformed
            response), ``""`` otherwise.
        prompt_tokens: Tokens of the prompt, as the server counted them (``None``: unknown).
        completion_tokens: Tokens of the answer (``None``: unknown), reasoning included as
            OpenAI-compatible servers count them.
        reasoning: The model's reasoning, kept apart from the answer (the server's
            ``reasoning_content``, or a ``<think>...</think>`` block cut from the front of the
            answer); ``None``: none came. The move is read from ``text`` only.
        reasoning_tokens: The completion tokens spent on reasoning (the server's
            ``completion_tokens_details.reasoning_tokens``; ``None``: not given).
    """

    text: str | None
    error: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning: str | None = None
    reasoning_tokens: int | None = None


_THINK = re.compile(r"\s*<think>(.*?)</think>", re.DOTALL)


def split_reasoning(text: str) -> tuple[str, str | None]:
    """``(answer, reasoning)`` of a text that may open with a ``<think>...</think>`` block.

    Servers that do not separate a reasoning model's trace put it in the answer this way; the
    block is cut so the move is read from what follows only.
    """
    think = _THINK.match(text)
    if think is None:
        return text, None
    return text[think.end():], think.group(1).strip()


class CallableBackend:
    """Any function ``messages -> str`` as a backend (an exception counts as no answer)."""

    def __init__(self, fn: Callable[[Messages], str], name: str = "callable"):
        """Wrap ``fn``; ``name`` is the model name written to the log."""
        self.fn = fn
        self.model = name
        self.base_url = ""

    def __call__(self, messages: Messages) -> Reply:
        """Ask the function."""
        try:
            text = self.fn([dict(m) for m in messages])
        except Exception as exc:  # any failure of the model is a counted no_answer
            return Reply(None, f"{type(exc).__name__}: {exc}")
        if not isinstance(text, str):
            return Reply(None, f"the backend returned {type(text).__name__}, not a string")
        return Reply(text)


def check_base_url(url: str) -> str:
    """``url`` if it is an http(s) URL with a host and no credentials.

    Raises:
        ValueError: Saying what is wrong and what is expected.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base URL {url!r} is not an http(s) URL with a host; give e.g. "
                         "http://127.0.0.1:8000/v1")
    if parts.username or parts.password:
        raise ValueError("the base URL must not carry credentials; put the API key in the "
                         "environment (OPENAI_API_KEY, or the variable named by api_key_env)")
    try:
        parts.port  # noqa: B018 - reading it checks it
    except ValueError:
        raise ValueError(f"base URL {url!r} has an invalid port") from None
    return url


class OpenAIBackend:
    """An OpenAI-compatible chat-completions server through the official ``openai`` client.

    Args:
        model: The model name the server knows.
        base_url: The server's API root, e.g. ``http://127.0.0.1:8000/v1``.
        temperature: Sampling temperature.
        max_tokens: Cap on the answer's tokens.
        seed: Sampling seed sent to the server (``None``: none sent).
        timeout: Seconds to wait for one answer; past it the answer is ``no_answer``.
        api_key_env: The environment variable holding the API key (a local server takes any
            key; ``"EMPTY"`` is sent when the variable is unset).

    Raises:
        ValueError: On a bad base URL, temperature, max tokens or timeout.
        ImportError: Without the ``openai`` package (the ``llm`` extra).
    """

    def __init__(self, model: str, base_url: str, temperature: float = 0.0,
                 max_tokens: int = 256, seed: int | None = 0, timeout: float = 60.0,
                 api_key_env: str = "OPENAI_API_KEY"):
        check_base_url(base_url)
        if not model:
            raise ValueError("the model name is empty; write llm:MODEL@BASE_URL")
        if not 0.0 <= float(temperature) <= 2.0:
            raise ValueError(f"temperature must be in 0..2, got {temperature!r}")
        if int(max_tokens) < 1:
            raise ValueError(f"max_tokens must be at least 1, got {max_tokens!r}")
        if not float(timeout) > 0:
            raise ValueError(f"timeout must be positive seconds, got {timeout!r}")
        try:
            import openai
        except ImportError:
            raise ImportError('the llm agent needs the openai package: pip install '
                              '"tabletop-gym[llm]"') from None
        self.model = model
        self.base_url = base_url
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.seed = seed
        self.timeout = float(timeout)
        self._openai = openai
        # No client-side retries: a retry is a rethink the harness counts, not a hidden resend.
        self._client = openai.OpenAI(base_url=base_url, api_key=os.environ.get(api_key_env)
                                     or "EMPTY", timeout=self.timeout, max_retries=0)

    def settings(self) -> dict[str, Any]:
        """The sampling settings, for the log (never the key)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens,
                "seed": self.seed, "timeout": self.timeout}

    def __call__(self, messages: Messages) -> Reply:
        """Ask the server once; every failure comes back as a :class:`Reply` with its error."""
        openai = self._openai
        extra: dict[str, Any] = {} if self.seed is None else {"seed": self.seed}
        try:
            out = self._client.chat.completions.create(
                model=self.model, messages=messages,  # type: ignore[arg-type]
                temperature=self.temperature, max_tokens=self.max_tokens, **extra)
        except openai.APITimeoutError:
            return Reply(None, f"timeout: no answer within {self.timeout:g} s")
        except openai.APIConnectionError as exc:
            return Reply(None, f"connection failed to {self.base_url}: {exc.__cause__ or exc}")
        except openai.APIStatusError as exc:
            return Reply(None, f"HTTP {exc.status_code} from {self.base_url}: "
                               f"{str(exc.message)[:200]}")
        except (openai.OpenAIError, ValueError, TypeError, KeyError, AttributeError) as exc:
            return Reply(None, f"malformed response from {self.base_url}: {exc}")
        choices = getattr(out, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            return Reply(None, f"malformed response from {self.base_url}: no choices")
        message = choices[0].message
        content = message.content
        if not isinstance(content, str):
            return Reply(None, f"malformed response from {self.base_url}: no message content")
        # reasoning_content is not in the OpenAI schema; the client keeps it as an extra field
        reasoning = getattr(message, "reasoning_content", None)
        content, think = split_reasoning(content)
        reasoning = reasoning if isinstance(reasoning, str) else think
        usage = getattr(out, "usage", None)
        details = getattr(usage, "completion_tokens_details", None)
        return Reply(content, "", getattr(usage, "prompt_tokens", None),
                     getattr(usage, "completion_tokens", None), reasoning,
                     getattr(details, "reasoning_tokens", None))


def empty_stats() -> dict[str, Any]:
    """The counters one agent keeps (and a league sums): see :attr:`LLMAgent.stats`."""
    return {"decisions": 0, "answers": 0, **{c: 0 for c in CLASSES}, "rethinks": 0,
            "fallbacks": 0, "forced": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "reasoning_tokens": 0, "seconds": 0.0, "no_answer_reasons": {}, "models": {},
            "probe_counts": {}, "probe_sums": {}}


def add_stats(total: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """``total`` plus ``more``, key by key (in place; returned); count tables add by entry."""
    for k, v in more.items():
        if isinstance(v, dict):
            table = total.setdefault(k, {})
            for reason, count in v.items():
                table[reason] = table.get(reason, 0) + count
        else:
            total[k] = total.get(k, 0) + v
    return total


FALLBACK_LIMIT = 0.05
"""The validity policy (docs/llm.md): an LLM seat that had more than this share of its moves
played by the fallback, not chosen by the model, makes every result it took part in invalid.
Such a result measures the fallback (a random legal move) as much as the model: a server that
was down for a whole league gave a rating of pure random play."""


class InvalidResultWarning(UserWarning):
    """A result in which an LLM seat's fallback rate passed :data:`FALLBACK_LIMIT`."""


INVALID_STATUS = 3
"""Exit status of a command (``eval``, ``league``, ``suite run``) whose LLM results are invalid
(docs/llm.md)."""


def allow_fallbacks_help() -> str:
    """The help of the ``--allow-fallbacks`` flag of every command that plays LLM agents."""
    return (f"exit 0 even when an llm: agent's results are invalid (more than "
            f"{FALLBACK_LIMIT * 100:g}%% of its moves played by the random fallback, e.g. from a "
            f"server that did not answer); the tables mark them INVALID either way (default: "
            f"exit {INVALID_STATUS})")


@contextlib.contextmanager
def invalid_results_told_once() -> Iterator[None]:
    """Silence the invalid-result warnings while a command plays: it says why itself, once."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvalidResultWarning)
        yield


def tell_invalid(command: str, invalid: dict[str, str], allow: bool) -> int:
    """Say on stderr why each invalid LLM result is invalid; the command's exit status.

    Returns:
        :data:`INVALID_STATUS` when a result is invalid and ``allow`` is false, else 0.
    """
    for name, why in invalid.items():
        print(f"tabletop-gym {command}: {'warning' if allow else 'error'}: "
              f"the results of {name} are INVALID: {why}", file=sys.stderr)
    if invalid and not allow:
        print(f"tabletop-gym {command}: the tables above mark them; pass --allow-fallbacks "
              "to accept them (exit status 0)", file=sys.stderr)
        return INVALID_STATUS
    return 0


def invalid_reason(stats: dict[str, Any]) -> str:
    """Why the counters of one LLM seat make its results invalid; ``""`` when they do not.

    The reason names the share of fallback moves, the limit, and the commonest reasons no
    answer came (a server down, a timeout), which are usually why.
    """
    d, f = stats.get("decisions", 0), stats.get("fallbacks", 0)
    if not d or f / d <= FALLBACK_LIMIT:
        return ""
    why = (f"{f} of its {d} moves ({f / d:.0%}) were played by the fallback, not chosen by the "
           f"model (the limit is {FALLBACK_LIMIT:.0%})")
    lost = no_answer_summary(stats)
    return f"{why}; {lost}" if lost else why


def no_answer_summary(stats: dict[str, Any], top: int = 3) -> str:
    """The commonest reasons no answer came, with their counts (``""`` when every answer came)."""
    reasons = stats.get("no_answer_reasons") or {}
    if not reasons:
        return ""
    ranked = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    parts = [f"{count}x {reason}" for reason, count in ranked[:top]]
    more = len(ranked) - top
    tail = f" and {more} other reason{'s' if more > 1 else ''}" if more > 0 else ""
    return f"no answer {stats.get(NO_ANSWER, 0)} times: " + "; ".join(parts) + tail


class LLMAgent:
    """A seat played by a language model through a strict, logged harness.

    Args:
        backend: A :class:`CallableBackend`, an :class:`OpenAIBackend` or any callable
            ``messages -> Reply | str``.
        game: The registry name of the game (for the rules summary).
        rethinks: Further tries after a non-legal answer before the fallback.
        fallback: ``"random"``: a random legal move from ``rng``, flagged in the log.
        rng: The generator of the fallback's choices (seeded: same seed, same fallbacks).
        name: The agent's name in reports (default ``llm:<model>``).
        mode: The prompt mode (:data:`tabletop_gym.text.rules.PROMPT_MODES`): ``"list"``, the
            numbered legal moves in every view, or ``"grammar"``, none (the move written in the
            game's move grammar).
        ask_forced: Whether a decision with one legal move is put to the model too. By default
            it is not: the move is played, counted in ``stats["forced"]`` and left out of the
            decisions and every rate (a one-move "choice" measures nothing).
        probes: Ask the game's belief probes (:mod:`tabletop_gym.text.probes`) after every
            ``probes``-th decision put to the model (0: never). Each probe that applies is
            asked about the first other seat it applies to, in a conversation of its own, and
            scored against the truth; the scores go into the decision's log (``probes``) and
            the counters (``probe_counts``, ``probe_sums``).

    It is a :class:`tabletop_gym.agents.base.TextAgent`: ``choose_action`` hands it the env
    (:meth:`act_env`), and it writes its own seat's text view from it.
    """

    def __init__(self, backend: Any, game: str, rethinks: int = 2, fallback: str = "random",
                 rng: np.random.Generator | int | None = None, name: str | None = None,
                 mode: str = LIST, ask_forced: bool = False, probes: int = 0):
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback={fallback!r} is not offered; choose one of {FALLBACKS}")
        if not isinstance(rethinks, int) or isinstance(rethinks, bool) or not 0 <= rethinks <= 10:
            raise ValueError(f"rethinks must be an int in 0..10, got {rethinks!r}")
        self.backend = backend
        self.game = game
        self.mode = check_mode(mode)
        if isinstance(probes, bool) or not isinstance(probes, int) or probes < 0:
            raise ValueError(f"probes must be an int >= 0 (ask after every n-th decision; 0: "
                             f"never), got {probes!r}")
        self.probe_every = probes
        self._probe_rng = random.Random(0)
        self.ask_forced = bool(ask_forced)
        self.system = system_prompt(game, mode)
        self.rethinks = rethinks
        self.fallback = fallback
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        model = str(getattr(backend, "model", "callable"))
        self.name = name or f"llm:{model}"
        self.model = model
        self.stats = empty_stats()
        """Counts over every decision so far: decisions (those put to the model), answers,
        each class, rethinks, fallbacks, forced moves (played without asking), prompt,
        completion and reasoning tokens, seconds spent waiting for answers, and each reason no
        answer came (``no_answer_reasons``)."""
        self.log: list[dict[str, Any]] = []
        """One entry per decision of the current episode (see :meth:`decide`)."""
        self._tracker = SeatTracker()
        self._episode: tuple[int, int] | None = None

    def header(self) -> dict[str, Any]:
        """What the log states once per agent: model, server, settings, prompt versions."""
        settings = getattr(self.backend, "settings", None)
        return {"agent": self.name, "model": self.model,
                "base_url": str(getattr(self.backend, "base_url", "")),
                "settings": settings() if callable(settings) else {},
                "prompt_version": PROMPT_VERSION, "prompt_mode": self.mode,
                "text_view_version": TEXT_VIEW_VERSION, "ask_forced": self.ask_forced,
                "probes": self.probe_every,
                "rethinks": self.rethinks, "fallback": self.fallback,
                "system_prompt": self.system}

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Refused: a language model plays from text, which ``choose_action`` gives it.

        Raises:
            TypeError: Always, naming the way to call it.
        """
        raise TypeError("an LLM agent reads its seat's text view, not the observation vector; "
                        "play it through tabletop_gym.agents.base.choose_action (evaluate, "
                        "league, play) or call act_env(env, agent)")

    def act_env(self, env: Any, agent: str) -> int:
        """The action of ``agent`` in the AEC ``env`` now (logged in :attr:`log`)."""
        raw = env.unwrapped
        key = (id(raw), raw.episode)
        if key != self._episode:
            self._episode = key
            self.log = []
        view = self._tracker.view(raw, agent, self.mode)
        if len(view.legal_moves) == 1 and not self.ask_forced:
            # Not a decision of the model's: its next view still tells what happened since the
            # last one it was asked, this move included.
            self.stats["forced"] += 1
            entry: dict[str, Any] = {"seat": view.seat, "forced": True, "attempts": [],
                     "action": view.legal_actions[0], "move": view.legal_moves[0],
                     "fallback": False, "index": len(raw.episode_actions()), "agent": agent}
            self.log.append(entry)
            return int(entry["action"])
        self._tracker.decided()
        state = raw.game_state
        n_actions = raw.game.num_distinct_actions
        entry = self.decide(view, lambda: other_move_names(state, view.seat, view.legal_actions,
                                                           n_actions))
        entry.update(index=len(raw.episode_actions()), agent=agent)
        if self.probe_every and self.stats["decisions"] % self.probe_every == 0:
            entry["probes"] = self.probe(state, view)
        self.log.append(entry)
        return int(entry["action"])

    def probe(self, state: Any, view: TextObservation) -> list[dict[str, Any]]:
        """Ask every belief probe of the game that applies now; their log entries.

        ``state`` is the full game state: it gives the truth and the resampler's posterior, and
        nothing of it reaches the model, which gets its own view and the question only.
        """
        out = []
        st = self.stats
        counts = st.setdefault("probe_counts", {})
        sums = st.setdefault("probe_sums", {})
        for probe in game_probes(self.game):
            found = targets(probe, state, view.seat)
            if not found:
                continue
            text = question(probe, found[0])
            reply, seconds = self._ask([{"role": "system", "content": self.system},
                                        {"role": "user",
                                         "content": f"{view.text}\n\n== Belief probe ==\n{text}"}])
            st["seconds"] += seconds
            st["prompt_tokens"] += reply.prompt_tokens or 0
            st["completion_tokens"] += reply.completion_tokens or 0
            st["reasoning_tokens"] += reply.reasoning_tokens or 0
            belief = (Belief(PROBE_NO_ANSWER, reason=reply.error) if reply.text is None
                      else parse_belief(reply.text, probe.outcomes))
            scores = score(probe, state, view.seat, found[0], belief, self._probe_rng)
            key = f"{probe.name}/{belief.kind}"
            counts[key] = counts.get(key, 0) + 1
            for name in ("uniform_log_loss", "uniform_brier", "posterior_log_loss",
                         "posterior_brier"):
                sums[f"{probe.name}/{name}_all"] = sums.get(f"{probe.name}/{name}_all", 0.0) \
                    + scores[name]
                if belief.kind == VALID:
                    sums[f"{probe.name}/{name}"] = sums.get(f"{probe.name}/{name}", 0.0) \
                        + scores[name]
            if belief.kind == VALID:
                for name in ("log_loss", "brier"):
                    sums[f"{probe.name}/{name}"] = sums.get(f"{probe.name}/{name}", 0.0) \
                        + scores[name]
            out.append({"probe": probe.name, "target": found[0], "question": text,
                        "answer": reply.text, "reasoning": reply.reasoning,
                        "class": belief.kind, "reason": belief.reason,
                        "belief": None if belief.p is None else [round(float(x), 6)
                                                                 for x in belief.p],
                        "latency_s": round(seconds, 4), **scores})
        return out

    def _ask(self, messages: Messages) -> tuple[Reply, float]:
        start = time.perf_counter()
        try:
            reply = self.backend(messages)
        except Exception as exc:  # a failing backend is a counted no_answer
            reply = Reply(None, f"{type(exc).__name__}: {exc}")
        seconds = time.perf_counter() - start
        if isinstance(reply, str):
            reply = Reply(reply)
        if not isinstance(reply, Reply):
            reply = Reply(None, f"the backend returned {type(reply).__name__}, not a string")
        return reply, seconds

    def decide(self, view: TextObservation,
               other_moves: Callable[[], Sequence[str]] = lambda: ()) -> dict[str, Any]:
        """Ask for one move from ``view``; return the decision's log entry.

        The entry holds the seat, the ``prompt`` (the view), every ``attempts`` item (the
        message sent, the answer, its class, the reason, latency and token counts), the chosen
        ``action`` and ``move``, and ``fallback`` (whether the fallback chose it).
        """
        if not view.legal_moves:
            raise ValueError("this seat has no legal move to choose (it is not to act)")
        messages: Messages = [{"role": "system", "content": self.system},
                              {"role": "user", "content": view.text}]
        attempts: list[dict[str, Any]] = []
        chosen: int | None = None
        st = self.stats
        st["decisions"] += 1
        for attempt in range(self.rethinks + 1):
            reply, seconds = self._ask(messages)
            if reply.text is None:
                kind, reason, index, match = NO_ANSWER, reply.error, None, ""
            else:
                parsed = parse_move(reply.text, view.legal_moves, other_moves,
                                    numbers=self.mode == LIST)
                kind, reason, index, match = parsed.kind, parsed.reason, parsed.index, parsed.match
            st["answers"] += 1
            st[kind] += 1
            models = st.setdefault("models", {})
            models[self.model] = models.get(self.model, 0) + 1
            if kind == NO_ANSWER:
                lost = st.setdefault("no_answer_reasons", {})
                key = shown(reason, 200)  # one entry per reason, however long its text
                lost[key] = lost.get(key, 0) + 1
            st["seconds"] += seconds
            st["prompt_tokens"] += reply.prompt_tokens or 0
            st["completion_tokens"] += reply.completion_tokens or 0
            st["reasoning_tokens"] += reply.reasoning_tokens or 0
            attempts.append({"sent": messages[-1]["content"] if attempt else "(the view)",
                             "answer": reply.text, "reasoning": reply.reasoning,
                             "class": kind, "match": match,
                             "reason": reason, "latency_s": round(seconds, 4),
                             "prompt_tokens": reply.prompt_tokens,
                             "completion_tokens": reply.completion_tokens,
                             "reasoning_tokens": reply.reasoning_tokens})
            if kind == LEGAL:
                chosen = index
                break
            if attempt < self.rethinks:
                st["rethinks"] += 1
                if reply.text is not None:
                    messages = [*messages, {"role": "assistant", "content": reply.text}]
                messages = [*messages, {"role": "user",
                                        "content": rethink_prompt(reason or kind,
                                                                  self.rethinks - attempt,
                                                                  self.mode)}]
        fallback = chosen is None
        if chosen is None:
            st["fallbacks"] += 1
            chosen = int(self.rng.integers(len(view.legal_moves)))
        return {"seat": view.seat, "prompt": view.text, "attempts": attempts,
                "action": view.legal_actions[chosen], "move": view.legal_moves[chosen],
                "fallback": fallback, "forced": False}


def record_with_logs(env: Any, agents: dict[str, Any]) -> Any:
    """``env.record()`` with the decision logs of the LLM agents among ``agents`` (by agent name).

    Each seat played by an :class:`LLMAgent` adds ``{"header", "agent", "seat", "decisions"}``
    to the record's ``agent_logs``.
    """
    rec = env.unwrapped.record()
    logs = []
    for name, agent in agents.items():
        if isinstance(agent, LLMAgent):
            logs.append({"header": agent.header(), "agent": name,
                         "seat": env.unwrapped.seat_of(name), "decisions": list(agent.log)})
    rec.agent_logs = logs or None
    return rec


def transcript_lines(logs: list[dict[str, Any]] | None, index: int, view: int | None,
                     prompts: bool = False) -> list[str]:
    """The LLM log of the decision that chose action ``index``, as the viewer may read it.

    A seat's prompts and answers hold its private cards, so only that seat's view shows them
    (``replay --view SEAT``, the web replay's seat view); any other view sees each answer's
    class, the fallback flag, latency and token counts.
    """
    out: list[str] = []
    for log in logs or []:
        for d in log.get("decisions", []):
            if d.get("index") != index:
                continue
            own = view is not None and view == log.get("seat")
            model = log.get("header", {}).get("model", "?")
            if d.get("forced"):
                out.append(f"llm {model}: forced move (the only legal one), played without "
                           "asking")
                continue
            if own and prompts:
                out.append(f"llm {model} prompt:")
                out += ["  | " + x for x in str(d.get("prompt", "")).splitlines()]
            for k, att in enumerate(d.get("attempts", []), 1):
                tokens = (f", {att.get('prompt_tokens')}+{att.get('completion_tokens')} tokens"
                          if att.get("prompt_tokens") is not None else "")
                if att.get("reasoning_tokens"):
                    tokens += f" ({att['reasoning_tokens']} reasoning)"
                head = f"llm {model} try {k}: {att.get('class')}"
                if own:
                    if k > 1 and prompts:
                        out.append(f"llm {model} rethink prompt: {att.get('sent')}")
                    if att.get("reasoning") is not None:
                        # the trace reads the seat's cards, like the answer: its own view only
                        out.append(f"llm {model} try {k} reasoning:")
                        out += ["  ~ " + x for x in str(att["reasoning"]).splitlines()]
                    answer = att.get("answer")
                    head += (f" <- {answer!r}" if answer is not None else "")
                    if att.get("reason"):
                        head += f" ({att['reason']})"
                out.append(f"{head}; {att.get('latency_s')} s{tokens}")
            if d.get("fallback"):
                out.append(f"llm {model}: FALLBACK, a random legal move was played for it")
            for pr in d.get("probes", []):
                head = f"llm {model} probe {pr.get('probe')} (seat {pr.get('target')}): " \
                       f"{pr.get('class')}"
                if own:
                    if prompts:
                        out.append(f"llm {model} probe question: {pr.get('question')}")
                    if pr.get("answer") is not None:
                        head += f" <- {pr['answer']!r}"
                    if pr.get("log_loss") is not None:
                        head += f"; log-loss {pr['log_loss']:.3f}, Brier {pr['brier']:.3f}"
                    head += (f" (uniform {pr.get('uniform_log_loss', 0):.3f}, resampler "
                             f"{pr.get('posterior_log_loss', 0):.3f})")
                out.append(head)
    return out


def game_stats(agents: dict[str, Any], roles: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The counters of this game's LLM agents, summed by role (``roles``: agent name -> role).

    The counters of an agent cover the current episode only when the agent was built for it,
    as ``evaluate`` does.
    """
    out: dict[str, dict[str, Any]] = {}
    for name, agent in agents.items():
        if isinstance(agent, LLMAgent):
            add_stats(out.setdefault(roles[name], empty_stats()), agent.stats)
    return out


SPEC_OPTIONS = {"temperature": float, "max_tokens": int, "seed": int, "timeout": float,
                "rethinks": int, "fallback": str, "api_key_env": str, "name": str,
                "prompt": str, "forced": str, "probes": int}
"""Options an ``llm:`` spec takes after ``?`` (``key=value`` joined by ``&``). ``prompt``: the
prompt mode (``list`` or ``grammar``); ``forced``: ``play`` (default) plays a one-move decision
without asking, ``ask`` asks anyway; ``probes``: ask the belief probes after every n-th
decision (0, default: never)."""

FORCED = ("play", "ask")


def parse_spec(spec: str) -> dict[str, Any]:
    """Read ``llm:MODEL@BASE_URL[?key=value&...]`` into its parts.

    Returns:
        ``{"model", "base_url", **options}`` with the options converted (:data:`SPEC_OPTIONS`;
        ``seed=none`` sends no seed).

    Raises:
        ValueError: Naming what is wrong and what is allowed.
    """
    if not spec.startswith("llm:"):
        raise ValueError(f"an LLM spec starts with 'llm:', got {spec!r}")
    body, _, query = spec[4:].partition("?")
    # The URL starts at the first "@" followed by a scheme (a model name may hold "@" too).
    starts = [m.start() for m in re.finditer(r"@(?=[A-Za-z][A-Za-z0-9+.-]*://)", body)]
    model, at, url = (body[:starts[0]], "@", body[starts[0] + 1:]) if starts else \
        body.rpartition("@")
    if not at or not model or not url:
        raise ValueError(f"LLM spec {spec!r} must read llm:MODEL@BASE_URL, e.g. "
                         "llm:qwen2.5@http://127.0.0.1:8000/v1")
    out: dict[str, Any] = {"model": model, "base_url": check_base_url(url)}
    for item in filter(None, query.split("&")):
        key, eq, value = item.partition("=")
        if key == "api_key":
            raise ValueError("an API key never goes in a spec (specs are logged); set it in "
                             "the environment and name the variable with api_key_env=NAME")
        if key not in SPEC_OPTIONS or not eq:
            raise ValueError(f"LLM spec option {item!r} is not allowed; options are "
                             f"{sorted(SPEC_OPTIONS)} as key=value")
        if key == "seed" and value.lower() == "none":
            out[key] = None
            continue
        try:
            out[key] = SPEC_OPTIONS[key](value)
        except ValueError:
            raise ValueError(f"LLM spec option {key}={value!r} is not a "
                             f"{SPEC_OPTIONS[key].__name__}") from None
    check_mode(out.get("prompt", LIST))
    if out.get("forced", "play") not in FORCED:
        raise ValueError(f"LLM spec option forced={out['forced']!r} is not offered; choose "
                         f"one of {FORCED}")
    return out


def agent_from_spec(spec: str, game: str, rng: np.random.Generator | None = None) -> LLMAgent:
    """The :class:`LLMAgent` of an ``llm:`` spec for ``game`` (an OpenAI-compatible server).

    Raises:
        ValueError: On a malformed spec or option.
        ImportError: Without the ``openai`` package.
    """
    opts = parse_spec(spec)
    backend_args = {k: opts[k] for k in ("temperature", "max_tokens", "seed", "timeout",
                                         "api_key_env") if k in opts}
    backend = OpenAIBackend(opts["model"], opts["base_url"], **backend_args)
    forced = opts.get("forced", "play")
    return LLMAgent(backend, game, rethinks=opts.get("rethinks", 2),
                    fallback=opts.get("fallback", "random"), rng=rng,
                    name=opts.get("name", spec), mode=opts.get("prompt", LIST),
                    ask_forced=forced == "ask", probes=opts.get("probes", 0))


Prices = dict[str, dict[str, float]]
"""A price table: ``{model or agent name: {"prompt": USD, "completion": USD}}`` per million
tokens (docs/llm.md, "Reasoning and cost")."""


def load_prices(table: Any) -> Prices:
    """A price table checked.

    Every entry must be a mapping with non-negative ``prompt`` and ``completion`` prices in US
    dollars per million tokens.

    Raises:
        ValueError: Naming the entry that is wrong and the form expected.
    """
    if not isinstance(table, dict):
        raise ValueError("a price table is a JSON object {model: {\"prompt\": USD per 1M "
                         "tokens, \"completion\": USD per 1M tokens}}")
    out: Prices = {}
    for model, entry in table.items():
        if not isinstance(entry, dict) or set(entry) != {"prompt", "completion"}:
            raise ValueError(f"the price of {model!r} must be {{\"prompt\": USD, "
                             f"\"completion\": USD}} per million tokens, got {entry!r}")
        prices = {}
        for k in ("prompt", "completion"):
            v = entry[k]
            if isinstance(v, bool) or not isinstance(v, int | float) or not v >= 0:
                raise ValueError(f"the {k} price of {model!r} must be a non-negative number "
                                 f"(USD per million tokens), got {v!r}")
            prices[k] = float(v)
        out[str(model)] = prices
    return out


def cost_usd(name: str, stats: dict[str, Any], prices: Prices | None) -> float | None:
    """The estimated cost in US dollars of an agent's tokens; ``None`` without its price.

    The price is looked up by the agent's name, then by its model. Reasoning tokens are part of
    the completion tokens, as OpenAI-compatible servers count them, so they cost the completion
    price.
    """
    models = stats.get("models") or {}
    keys = [name, *sorted(models, key=lambda m: -models[m])]
    price = next((prices[k] for k in keys if prices and k in prices), None)
    if price is None:
        return None
    return (stats.get("prompt_tokens", 0) * price["prompt"]
            + stats.get("completion_tokens", 0) * price["completion"]) / 1e6


def report_rows(stats_by_agent: dict[str, dict[str, Any]],
                prices: Prices | None = None) -> list[dict[str, Any]]:
    """One row per LLM agent: fallback rate, illegal-answer rate, tokens and seconds per decision.

    Rates are over decisions (fallbacks) and over answers (each class); a row with no decision
    has NaN rates. Forced moves (one legal move, played without asking) are counted in
    ``forced`` and are in no rate. ``invalid`` says why the agent's results are invalid
    (:data:`FALLBACK_LIMIT`; ``""``: valid), and ``no_answer_reasons`` counts each reason no
    answer came. ``prompt_tokens``, ``completion_tokens`` and ``reasoning_tokens`` are totals;
    ``cost_usd`` is their price from ``prices`` (:func:`cost_usd`; ``None``: no price given).
    ``probes`` holds one row per belief probe asked
    (:func:`tabletop_gym.text.probes.probe_rows`).
    """
    rows = []
    for name, st in stats_by_agent.items():
        d, a = st.get("decisions", 0), st.get("answers", 0)
        tokens = st.get("prompt_tokens", 0) + st.get("completion_tokens", 0)
        rows.append({
            "agent": name, "decisions": d, "forced": st.get("forced", 0), "answers": a,
            "fallback_rate": st.get("fallbacks", 0) / d if d else float("nan"),
            "illegal_rate": st.get(ILLEGAL, 0) / a if a else float("nan"),
            "unparsable_rate": st.get(UNPARSABLE, 0) / a if a else float("nan"),
            "no_answer_rate": st.get(NO_ANSWER, 0) / a if a else float("nan"),
            "tokens_per_decision": tokens / d if d else float("nan"),
            "seconds_per_decision": st.get("seconds", 0.0) / d if d else float("nan"),
            "prompt_tokens": st.get("prompt_tokens", 0),
            "completion_tokens": st.get("completion_tokens", 0),
            "reasoning_tokens": st.get("reasoning_tokens", 0),
            "cost_usd": cost_usd(name, st, prices),
            "probes": probe_rows({name: st}),
            "invalid": invalid_reason(st),
            "no_answer_reasons": dict(st.get("no_answer_reasons") or {}),
        })
    return rows


def report_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The LLM report rows as a markdown table, then why a result is invalid or answers failed."""
    lines = ["| LLM agent | decisions | forced | answers | fallback rate | illegal-answer rate | "
             "unparsable rate | no-answer rate | tokens / decision | seconds / decision | "
             "prompt / completion / reasoning tokens | cost (USD) | valid |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for r in rows:
        invalid = r.get("invalid", "")
        cost = r.get("cost_usd")
        lines.append(f"| `{r['agent']}` | {r['decisions']} | {r.get('forced', 0)} | "
                     f"{r['answers']} | "
                     f"{r['fallback_rate']:.3f} | {r['illegal_rate']:.3f} | "
                     f"{r['unparsable_rate']:.3f} | {r['no_answer_rate']:.3f} | "
                     f"{r['tokens_per_decision']:.1f} | {r['seconds_per_decision']:.3f} | "
                     f"{r.get('prompt_tokens', 0)} / {r.get('completion_tokens', 0)} / "
                     f"{r.get('reasoning_tokens', 0)} | "
                     f"{'no price' if cost is None else f'{cost:.4f}'} | "
                     f"{'**INVALID**' if invalid else 'yes'} |")
        if invalid:
            notes.append(f"- `{r['agent']}` is INVALID: {invalid}.")
        elif r.get("no_answer_reasons"):
            lost = no_answer_summary({NO_ANSWER: sum(r["no_answer_reasons"].values()),
                                      "no_answer_reasons": r["no_answer_reasons"]})
            notes.append(f"- `{r['agent']}`: {lost}.")
    probes = [p for r in rows for p in r.get("probes", [])]
    if probes:
        notes += ["", "Belief probes (docs/llm.md, \"Belief probes\"; means over the valid "
                      "answers):", "", probe_markdown(probes)]
    return "\n".join(lines + (["", *notes] if notes else []))


def invalid_agents(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """``{agent: why}`` of the report rows whose results are invalid (:func:`invalid_reason`)."""
    return {r["agent"]: r["invalid"] for r in rows if r.get("invalid")}


def warn_invalid(rows: Sequence[dict[str, Any]], what: str, stacklevel: int) -> dict[str, str]:
    """Warn (:class:`InvalidResultWarning`) when any of the report ``rows`` is invalid.

    Args:
        rows: The LLM report rows of a result.
        what: The result, as the warning's subject (``"this league's results"``).
        stacklevel: The caller's stack level for the warning, counted from the caller.

    Returns:
        ``{agent: why}`` of the invalid rows (:func:`invalid_agents`).
    """
    invalid = invalid_agents(rows)
    if invalid:
        warnings.warn(f"{what} invalid: " + "; ".join(
            f"{name}: {why}" for name, why in invalid.items()), InvalidResultWarning,
            stacklevel=stacklevel + 1)
    return invalid


if TYPE_CHECKING:
    # The language model is handed the env (tabletop_gym.agents.base.TextAgent).
    from tabletop_gym.agents.base import TextAgent

    _text: type[TextAgent] = LLMAgent
