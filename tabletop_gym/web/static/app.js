// tabletop-gym serve: the pages' script. Plain JavaScript, no build step, nothing fetched from
// outside this server. The server holds every game; the page only shows what the API returns.
"use strict";

const TG = (() => {
  const $ = (id) => document.getElementById(id);

  async function api(method, path, body, token) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers["X-Seat-Token"] = token;
    const res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await res.json();
    if (!res.ok) {
      const err = new Error(data.error || res.statusText);
      err.status = res.status;
      throw err;
    }
    return data;
  }

  function el(tag, text, attrs) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  }

  function seatName(view, seat) {
    const kind = view.seats ? view.seats[seat] : null;
    return `Seat ${seat}` + (kind ? ` (${kind})` : "");
  }

  function showLog(view, names) {
    const log = $("log");
    log.replaceChildren();
    for (const entry of view.log) {
      const li = el("li", `${names(entry.seat)}: ${entry.text}`);
      for (const ev of entry.events) li.appendChild(el("span", ev, { class: "event" }));
      for (const line of entry.llm || []) li.appendChild(el("span", line, { class: "llm" }));
      log.appendChild(li);
    }
    log.scrollTop = log.scrollHeight;
  }

  function showScores(view, box) {
    box.replaceChildren();
    if (!view.over) return;
    const p = el("p", "Final scores: " + view.scores.map((s, q) => `seat ${q}: ${s}`).join(", ") +
      "; winner(s): " + view.winners.map((q) => `seat ${q}`).join(", "), { class: "scores", id: "scores" });
    p.dataset.scores = JSON.stringify(view.scores);
    box.appendChild(p);
  }

  // ---- new game, games list, records ---------------------------------------------------------

  async function indexPage() {
    const cat = await api("GET", "/api/catalog");
    const gameSel = $("game");
    for (const name of Object.keys(cat.games)) gameSel.appendChild(el("option", name, { value: name }));
    for (const a of cat.agents) $("agents").appendChild(el("option", null, { value: a }));

    function field(f) {
      const label = el("label", f.name + " ");
      let input;
      if (f.type === "bool") {
        input = el("input", null, { type: "checkbox" });
        input.checked = f.default;
      } else if (f.choices) {
        input = el("select");
        for (const c of f.choices) input.appendChild(el("option", String(c), { value: JSON.stringify(c) }));
        input.value = JSON.stringify(f.default);
      } else if (f.type === "int") {
        input = el("input", null, { type: "number", value: String(f.default) });
        if (f.range) { input.min = f.range[0]; input.max = f.range[1]; }
      } else {
        input = el("input", null, { type: "text", value: JSON.stringify(f.default) });
      }
      input.id = "cfg-" + f.name;
      input.dataset.kind = f.choices ? "json" : f.type;
      label.appendChild(input);
      return label;
    }

    function readConfig() {
      const cfg = {};
      for (const f of cat.games[gameSel.value].config) {
        const input = $("cfg-" + f.name);
        const kind = input.dataset.kind;
        if (kind === "bool") cfg[f.name] = input.checked;
        else if (kind === "int") cfg[f.name] = Number(input.value);
        else if (kind === "json") cfg[f.name] = JSON.parse(input.value);
        else {
          try { cfg[f.name] = JSON.parse(input.value); } catch (e) { cfg[f.name] = input.value; }
        }
      }
      return cfg;
    }

    function seatCount() {
      const input = $("cfg-num_players");
      return Math.max(1, Math.min(6, Number(input ? input.value : 2) || 1));
    }

    function drawSeats() {
      const box = $("seats");
      const old = Array.from(box.querySelectorAll("input")).map((i) => i.value);
      box.replaceChildren();
      for (let q = 0; q < seatCount(); q++) {
        const label = el("label", `Seat ${q} `);
        const input = el("input", null, { type: "text", list: "agents", id: "seat-" + q });
        input.value = old[q] || (q === 0 ? "human" : "heuristic");
        label.appendChild(input);
        box.appendChild(label);
      }
    }

    function drawConfig() {
      const box = $("config");
      box.replaceChildren();
      for (const f of cat.games[gameSel.value].config) box.appendChild(field(f));
      $("cfg-num_players").addEventListener("input", drawSeats);
      drawSeats();
    }

    gameSel.addEventListener("change", drawConfig);
    drawConfig();

    $("new-game").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      $("error").textContent = "";
      let body;
      try {
        const seats = [];
        for (let q = 0; q < seatCount(); q++) seats.push($("seat-" + q).value.trim());
        body = { game: gameSel.value, config: readConfig(), seats, seed: Number($("seed").value) };
      } catch (e) {
        $("error").textContent = "A config value is not valid JSON: " + e.message;
        return;
      }
      try {
        const made = await api("POST", "/api/games", body);
        const links = Object.entries(made.tokens).map(([q, t]) => [q, `/game/${made.id}#token=${t}`]);
        if (links.length <= 1) {
          window.location.href = links.length ? links[0][1] : `/game/${made.id}`;
          return;
        }
        const box = $("links");
        box.replaceChildren(el("p", "Each human seat has its own private link: open each in the browser of the person who plays it."));
        for (const [q, href] of links) {
          const p = el("p");
          p.appendChild(el("a", `Play seat ${q}`, { href }));
          box.appendChild(p);
        }
        const p = el("p");
        p.appendChild(el("a", "Watch (public view)", { href: `/game/${made.id}` }));
        box.appendChild(p);
      } catch (e) {
        $("error").textContent = e.message;
      }
    });

    const games = await api("GET", "/api/games");
    for (const g of games) {
      const tr = el("tr");
      const td = el("td");
      td.appendChild(el("a", `${g.game} ${g.id}`, { href: `/game/${g.id}` }));
      tr.appendChild(td);
      tr.appendChild(el("td", g.seats.join(" vs ")));
      tr.appendChild(el("td", `${g.actions} actions` + (g.over ? ", over" : "")));
      $("games").appendChild(tr);
    }

    async function openReplay(body) {
      $("replay-error").textContent = "";
      try {
        const made = await api("POST", "/api/replays", body);
        window.location.href = `/replay/${made.id}`;
      } catch (e) {
        $("replay-error").textContent = e.message;
      }
    }
    $("upload").addEventListener("change", async () => {
      const file = $("upload").files[0];
      if (file) openReplay({ record: await file.text() });
    });
    for (const path of await api("GET", "/api/records")) {
      const tr = el("tr");
      const td = el("td");
      const b = el("button", path, { type: "button" });
      b.addEventListener("click", () => openReplay({ path }));
      td.appendChild(b);
      tr.appendChild(td);
      $("records").appendChild(tr);
    }
  }

  // ---- play or watch a game ------------------------------------------------------------------

  function gamePage() {
    const gid = decodeURIComponent(window.location.pathname.split("/").pop());
    const token = new URLSearchParams(window.location.hash.slice(1)).get("token");
    let timer = null;
    let paused = false;
    let busy = false;
    let view = null;

    function setBusy(b) {
      busy = b;
      $("status").dataset.busy = String(b);
      for (const button of $("moves").querySelectorAll("button")) button.disabled = b;
    }

    function render(v) {
      view = v;
      const you = v.you === null ? "watching (public view)" : `you are seat ${v.you}`;
      $("title").textContent = `${v.game}: ${v.seats.join(" vs ")} (${you})`;
      $("board").innerHTML = v.svg;  // drawn by the server from the table's scene
      let status;
      if (v.over) status = "Game over";
      else if (v.you !== null && v.to_act === v.you) status = "Your move";
      else status = `${seatName(v, v.to_act)} to act`;
      const st = $("status");
      st.textContent = status;
      st.dataset.actions = String(v.actions);
      st.dataset.over = String(v.over);
      const moves = $("moves");
      moves.replaceChildren();
      for (const m of v.legal) {
        const b = el("button", m.label, { type: "button", "data-action": String(m.action) });
        b.addEventListener("click", () => play(m.action));
        moves.appendChild(b);
      }
      showLog(v, (q) => (q === v.you ? "you" : seatName(v, q)));
      const result = $("result");
      showScores(v, result);
      if (v.over) {
        const a = el("a", "Download the game record", { href: `/api/games/${gid}/record`, download: `${v.game}-${gid}.json`, id: "record" });
        result.appendChild(a);
      }
    }

    function schedule() {
      clearTimeout(timer);
      if (!view || view.over) return;
      if (view.to_act_kind === "agent") {
        if (!paused) timer = setTimeout(advance, Number($("speed").value));
      } else if (view.to_act !== view.you) {
        timer = setTimeout(refresh, 1000);  // another person's move
      }
    }

    async function run(work) {
      setBusy(true);
      $("error").textContent = "";
      try {
        render(await work());
      } catch (e) {
        $("error").textContent = e.message;
        // Someone else moved first (another page of this game): show the game as it is now.
        if (e.status === 409) render(await api("GET", `/api/games/${gid}`, undefined, token));
      } finally {
        setBusy(false);
        schedule();
      }
    }

    const refresh = () => run(() => api("GET", `/api/games/${gid}`, undefined, token));
    const advance = () => run(() => api("POST", `/api/games/${gid}/advance`, undefined, token));
    const play = (action) => {
      if (!busy) run(() => api("POST", `/api/games/${gid}/move`, { action }, token));
    };

    $("pause").addEventListener("click", () => {
      paused = !paused;
      $("pause").textContent = paused ? "Resume" : "Pause";
      schedule();
    });
    $("speed").addEventListener("change", schedule);
    refresh();
  }

  // ---- step through a record -----------------------------------------------------------------

  function replayPage() {
    const rid = decodeURIComponent(window.location.pathname.split("/").pop());
    let steps = 0;
    let step = 0;
    let timer = null;

    async function show(k) {
      step = Math.max(0, Math.min(steps, k));
      const viewSel = $("view");
      try {
        const v = await api("GET", `/api/replays/${rid}?step=${step}&view=${viewSel.value || "public"}`);
        steps = v.steps;
        $("title").textContent = `${v.game} record: ${v.name}`;
        if (viewSel.options.length === 0) {
          viewSel.appendChild(el("option", "public", { value: "public" }));
          for (let q = 0; q < v.num_players; q++) viewSel.appendChild(el("option", `seat ${q}`, { value: String(q) }));
        }
        $("board").innerHTML = v.svg;
        $("status").textContent = `Action ${v.step} of ${v.steps}`;
        $("status").dataset.step = String(v.step);
        $("step").max = String(v.steps);
        $("step").value = String(v.step);
        showLog(v, (q) => `Seat ${q}`);
        showScores(v, $("result"));
        $("error").textContent = "";
      } catch (e) {
        $("error").textContent = e.message;
      }
    }

    function stop() {
      clearInterval(timer);
      timer = null;
      $("play").textContent = "Play";
    }

    $("first").addEventListener("click", () => { stop(); show(0); });
    $("prev").addEventListener("click", () => { stop(); show(step - 1); });
    $("next").addEventListener("click", () => { stop(); show(step + 1); });
    $("last").addEventListener("click", () => { stop(); show(steps); });
    $("step").addEventListener("input", () => { stop(); show(Number($("step").value)); });
    $("view").addEventListener("change", () => show(step));
    $("play").addEventListener("click", () => {
      if (timer) return stop();
      $("play").textContent = "Stop";
      timer = setInterval(() => (step >= steps ? stop() : show(step + 1)), Number($("speed").value));
    });
    show(0);
  }

  return { indexPage, gamePage, replayPage };
})();
