// The transcript viewer of a tau2 HTML report: a sortable, filterable table of simulations whose rows
// open that simulation's transcript. Data comes from the page itself; transcripts are gzip blocks that
// are decoded only when a row is opened, so a run of 10,000 simulations stays quick.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("tau2-rows").textContent);
  const F = Object.fromEntries(data.fields.map((name, index) => [name, index]));
  const rows = data.rows.map((row, index) => ({ index, row }));
  const PAGE = 200;
  const state = { sort: "index", dir: 1, shown: PAGE, text: "", outcome: "all", termination: "all" };
  const cache = new Map();
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else if (key === "title") node.title = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }
  const int = (n) => (n === null || n === undefined ? "n/a" : Number(n).toLocaleString("en-US"));
  const usd = (c) => (c === null || c === undefined ? "unpriced" : "$" + Number(c).toFixed(4));
  const outcome = (row) => (row[F.excluded] ? "excluded" : row[F.reward] >= 1 ? "pass" : "fail");
  const json = (value) => (typeof value === "string" ? value : JSON.stringify(value));

  // A name as the tables show it: past data.long characters its start and end around an ellipsis, the
  // whole of it one click away (the click does not open the row's transcript).
  function name(text) {
    text = String(text);
    if (text.length <= data.long) return text;
    const tail = Math.floor(data.long / 4);
    const short = text.slice(0, data.long - tail - 1) + "…" + text.slice(-tail);
    const summary = el("summary", {}, short + " ", el("span", { class: "note" }, `(${int(text.length)} characters)`));
    summary.addEventListener("click", (event) => event.stopPropagation());
    return el("details", { class: "long" }, summary, el("div", { class: "whole" }, text));
  }

  function chips(row) {
    const box = el("span", { class: "chips" });
    if (!row[F.intent] && !row[F.subtasks].length) box.append(el("span", { class: "chip" }, name(row[F.task])));
    if (row[F.intent]) box.append(el("span", { class: "chip intent" }, name(row[F.intent])));
    for (const fault of row[F.subtasks]) box.append(el("span", { class: "chip" }, name(fault)));
    return box;
  }

  function matches(item) {
    const row = item.row;
    if (state.outcome !== "all" && outcome(row) !== state.outcome) return false;
    if (state.termination !== "all" && row[F.termination] !== state.termination) return false;
    if (!state.text) return true;
    const haystack = [row[F.task], row[F.termination], row[F.persona] || "", row[F.run] || ""].join(" ").toLowerCase();
    return state.text.split(/\s+/).every((word) => haystack.includes(word));
  }

  function sortKey(item) {
    const row = item.row;
    switch (state.sort) {
      case "outcome": return outcome(row);
      case "task": return row[F.task];
      case "index": return item.index;
      default: {
        const value = row[F[state.sort]];
        return value === null ? -1 : value;
      }
    }
  }

  function render() {
    const chosen = rows.filter(matches);
    chosen.sort((a, b) => {
      const ka = sortKey(a), kb = sortKey(b);
      return (ka < kb ? -1 : ka > kb ? 1 : a.index - b.index) * state.dir;
    });
    const body = $("sim-body");
    body.replaceChildren();
    for (const item of chosen.slice(0, state.shown)) body.append(tableRow(item));
    $("sim-count").textContent =
      `${int(Math.min(state.shown, chosen.length))} shown of ${int(chosen.length)} matching ` +
      `(${int(rows.length)} simulations)`;
    $("sim-more").hidden = chosen.length <= state.shown;
    for (const th of document.querySelectorAll("#sim-table th[data-sort]")) {
      th.dataset.dir = th.dataset.sort === state.sort ? (state.dir > 0 ? "asc" : "desc") : "";
    }
  }

  function tableRow(item) {
    const row = item.row;
    const result = outcome(row);
    const tr = el(
      "tr",
      { class: "sim " + result, "data-index": item.index, tabindex: "0", title: row[F.task] },
      el("td", { class: "num" }, item.index + 1),
      row[F.run] ? el("td", {}, row[F.run]) : null,
      el("td", {}, el("span", { class: "badge " + result }, result)),
      el("td", {}, chips(row)),
      el("td", {}, name(row[F.persona] || "")),
      el("td", { class: "num" }, row[F.trial]),
      el("td", {}, row[F.termination]),
      el("td", { class: "num" }, int(row[F.steps])),
      el("td", { class: "num" + (row[F.tool_errors] ? " bad" : "") }, int(row[F.tool_errors])),
      el("td", { class: "num" }, int(row[F.tokens])),
      el("td", { class: "num" }, usd(row[F.cost])),
    );
    tr.addEventListener("click", () => open(item.index));
    tr.addEventListener("keydown", (event) => { if (event.key === "Enter") open(item.index); });
    return tr;
  }

  async function block(number) {
    if (!cache.has(number)) {
      const text = document.getElementById("tau2-t-" + number).textContent.trim();
      const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      cache.set(number, new Response(stream).text().then(JSON.parse));
    }
    return cache.get(number);
  }

  async function open(index) {
    const transcript = (await block(Math.floor(index / data.chunk)))[index % data.chunk];
    const panel = $("transcript");
    panel.replaceChildren(...detail(rows[index].row, transcript, index));
    panel.hidden = false;
    for (const tr of document.querySelectorAll("tr.sim.selected")) tr.classList.remove("selected");
    const selected = document.querySelector(`tr.sim[data-index="${index}"]`);
    if (selected) selected.classList.add("selected");
    if (location.hash !== "#sim-" + (index + 1)) history.replaceState(null, "", "#sim-" + (index + 1));
    panel.scrollIntoView({ block: "start" });
  }

  function detail(row, t, index) {
    const result = outcome(row);
    const head = el(
      "div", { class: "detail-head" },
      el("h3", {}, `Simulation ${index + 1} `, row[F.run] ? `(run ${row[F.run]}) ` : "",
        el("span", { class: "badge " + result }, result)),
      chips(row),
      el("details", {}, el("summary", {}, "full task id"), el("code", {}, row[F.task])),
    );
    const facts = el("dl", { class: "facts" });
    const fact = (name, value, cls) => facts.append(el("dt", {}, name), el("dd", { class: cls || "" }, value));
    fact("termination", row[F.termination] + (t.detail ? ": " + t.detail : ""), result === "pass" ? "" : "bad");
    fact("mode", t.mode);
    fact("persona", name(row[F.persona] || "none"));
    fact("trial / seed", `${row[F.trial]} / ${t.seed}`);
    fact("expects transfer", t.transfer ? "yes" : "no");
    fact("turns / tool errors", `${int(row[F.steps])} / ${int(row[F.tool_errors])}`);
    const failures = Object.entries(t.format || {});
    if (failures.length) {
      fact("format failures", failures.map(([seat, n]) => `${seat} ${int(n)}`).join(", ") +
        " (tool calls written as text, not run)", "bad");
    }
    const usage = table(
      "Tokens and cost per seat", ["seat", "calls", "prompt tokens", "completion tokens", "cost", "cut at the token cap"],
      Object.entries(t.usage).map(([seat, u]) => [
        seat, int(u[0]), int(u[1]), int(u[2]), usd(u[3]), u[4] ? { text: int(u[4]), cls: "bad" } : int(u[4] || 0),
      ]),
    );
    const assertions = table(
      "Assertions", ["", "seat", "assertion", "arguments", "must return", "observed", "error"],
      t.assertions.map((a) => [
        { text: a[4] ? "pass" : "FAIL", cls: a[4] ? "good" : "bad" },
        a[0], name(a[1]), json(a[2]), a[3] ? "True" : "False", a[6] === null || a[6] === undefined ? "" : json(a[6]), a[5] || "",
      ]),
    );
    const changes = table(
      "What changed in the world (start → end)", ["place", "change", "before", "after"],
      t.changes.map((c) => [c[0], c[1], c[1] === "added" ? "" : json(c[2]), c[1] === "removed" ? "" : json(c[3])]),
      "The world state did not change.",
    );
    const actions = table(
      "Reference actions", ["action", "seat", "performed", "by the right seat"],
      t.actions.map((a) => [
        name(a[0]), a[1],
        { text: a[2] ? "yes" : "NO", cls: a[2] ? "good" : "bad" },
        { text: a[3] ? "yes" : "NO", cls: a[3] ? "good" : "bad" },
      ]),
    );
    return [head, facts, conversation(t), perturbations(t), assertions, changes, actions, usage];
  }

  // What the run's perturbations did to this simulation (a fault, a dropped call, a renamed world, …).
  function perturbations(t) {
    const p = t.perturbation;
    if (!p) return el("span");
    const noticed = p.noticed.length ? "the agent noticed: " + p.noticed.join(", ") : "the agent noticed none";
    return table(
      `Perturbations (${noticed})`, ["kind", "effect", "seat", "entry", "tool", "detail"],
      p.events.map((e) => [e[0], e[1] + (e[6] ? " (again)" : ""), e[2] || "", e[3] === null ? "" : e[3], e[4] || "", e[5] || ""]),
    );
  }

  // The events of perturbations by the entry of the call they kept from the world (and of its result).
  function perturbedEntries(t) {
    const marks = new Map();
    for (const e of (t.perturbation ? t.perturbation.events : [])) {
      if (e[3] === null) continue;
      for (const index of [e[3], e[3] + 1]) {
        marks.set(index, [...(marks.get(index) || []), `${e[0]}: ${e[1]}`]);
      }
    }
    return marks;
  }

  function table(title, columns, body, empty) {
    if (!body.length) return empty ? el("p", { class: "note" }, empty) : el("span");
    const t = el("table", {}, el("caption", {}, title));
    t.append(el("tr", {}, ...columns.map((c) => el("th", {}, c))));
    for (const cells of body) {
      t.append(el("tr", {}, ...cells.map((cell) =>
        typeof cell === "object" && cell !== null ? el("td", { class: cell.cls }, cell.text) : el("td", {}, cell))));
    }
    return el("div", { class: "table-box" }, t);
  }

  function conversation(t) {
    const box = el("div", { class: "conversation" });
    const seats = t.mode.startsWith("solo") ? ["agent"] : ["agent", "user"];
    const picker = el("select", { "aria-label": "whose view" },
      el("option", { value: "both" }, "both seats"),
      ...seats.map((seat) => el("option", { value: seat }, seat + "'s view")));
    const grid = el("div", { class: "turns cols-" + seats.length });
    const marks = perturbedEntries(t);
    const draw = () => {
      grid.replaceChildren(el("div", { class: "th" }, "#"), ...seats.map((s) => el("div", { class: "th" }, s)));
      t.entries.forEach((e, number) => {
        const [seat, kind] = e;
        const view = picker.value;
        if (view !== "both" && kind !== "message" && seat !== view) return;
        grid.append(el("div", { class: "idx" }, number));
        for (const s of seats) grid.append(s === seat ? entry(e, marks.get(number)) : el("div", { class: "blank" }));
      });
    };
    picker.addEventListener("change", draw);
    draw();
    box.append(el("h4", {}, "Transcript ", picker,
      el("span", { class: "note" }, " messages reach both seats; tool calls and results only their own")), grid);
    return box;
  }

  function entry(e, perturbed) {
    const shown = entryBody(e);
    if (e[5]) shown.append(el("span", { class: "cut" }, " [reply cut at the token cap]"));
    if (perturbed) {
      shown.classList.add("perturbed");
      shown.append(el("span", { class: "cut" }, ` [never reached the world: ${perturbed.join("; ")}]`));
    }
    return shown;
  }

  function entryBody(e) {
    const [seat, kind, name, payload, ok] = e;
    if (kind === "call") return el("div", { class: `turn call ${seat}` }, "→ ", el("b", {}, name), "(" + json(payload) + ")");
    if (kind === "result") return el("div", { class: `turn result ${seat}` + (ok ? "" : " error") }, (ok ? "← " : "✗ ") + name + ": " + payload);
    if (kind === "rejected") {
      const calls = payload.map(([tool, args]) => "→ " + tool + "(" + args + ")");
      return el("div", { class: `turn rejected ${seat}` }, "✗ not accepted: " + ([name, ...calls].filter((part) => part).join("\n") || "(empty reply)"));
    }
    if (kind === "error") return el("div", { class: `turn error ${seat}` }, "! " + name);
    return el("div", { class: `turn message ${seat}` }, name);
  }

  function setup() {
    const termination = $("sim-termination");
    for (const reason of [...new Set(rows.map((r) => r.row[F.termination]))].sort()) {
      termination.append(el("option", { value: reason }, reason));
    }
    $("sim-filter").addEventListener("input", (e) => { state.text = e.target.value.trim().toLowerCase(); state.shown = PAGE; render(); });
    $("sim-outcome").addEventListener("change", (e) => { state.outcome = e.target.value; state.shown = PAGE; render(); });
    termination.addEventListener("change", (e) => { state.termination = e.target.value; state.shown = PAGE; render(); });
    $("sim-more").addEventListener("click", () => { state.shown += PAGE; render(); });
    for (const th of document.querySelectorAll("#sim-table th[data-sort]")) {
      th.addEventListener("click", () => {
        state.dir = state.sort === th.dataset.sort ? -state.dir : 1;
        state.sort = th.dataset.sort;
        render();
      });
    }
    for (const link of document.querySelectorAll("a[data-outcome]")) {
      link.addEventListener("click", () => {
        state.outcome = link.dataset.outcome;
        $("sim-outcome").value = state.outcome;
        state.shown = PAGE;
        render();
      });
    }
    render();
    const linked = () => {
      const wanted = /^#sim-(\d+)$/.exec(location.hash);
      return wanted && rows[wanted[1] - 1] ? wanted[1] - 1 : null;
    };
    // Links within the page (a comparison's tasks that flip) open the simulation they point at.
    window.addEventListener("hashchange", () => { if (linked() !== null) open(linked()); });
    if (linked() !== null) open(linked());
    else if (data.open !== null && rows[data.open]) open(data.open);
  }
  setup();
})();
