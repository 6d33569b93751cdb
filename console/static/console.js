// The mcp-bridge web console: plain JavaScript, no framework, no build
// step. It reads the JSON endpoints and event streams under /ui/api/.
"use strict";

const api = "/ui/api/";
const $ = (sel) => document.querySelector(sel);
const maxRows = 500; // rows the traffic table keeps: bounded memory here too

// el makes an element with text and class.
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function badge(text) {
  return el("span", text, "status " + text);
}

async function getJSON(path) {
  const r = await fetch(api + path, { credentials: "same-origin" });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

async function postJSON(path, value) {
  const r = await fetch(api + path, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify(value),
  });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function fillSelect(sel, values) {
  for (const v of values) sel.append(new Option(v, v));
}

// ---- views --------------------------------------------------------------

const views = ["agents", "traffic", "playground", "conformance"];

function show() {
  const name = views.includes(location.hash.slice(1)) ? location.hash.slice(1) : "agents";
  for (const v of views) {
    $("#view-" + v).hidden = v !== name;
    document.querySelector(`nav a[data-view="${v}"]`).classList.toggle("active", v === name);
  }
  if (name === "traffic") traffic.start();
}

// ---- agents -------------------------------------------------------------

const agents = {
  rows: [],
  render() {
    const q = $("#agents-filter").value.trim().toLowerCase();
    const body = $("#agents-table tbody");
    body.replaceChildren();
    let shown = 0;
    for (const a of this.rows) {
      const hay = [a.id, a.dialect, a.transport, a.status, a.instance || "", ...a.tools, ...a.topics].join(" ").toLowerCase();
      if (q && !hay.includes(q)) continue;
      shown++;
      const tr = el("tr");
      tr.dataset.id = a.id;
      tr.append(el("td", a.id, "mono"), el("td", a.dialect), el("td", a.transport));
      const st = el("td");
      st.append(badge(a.status));
      tr.append(st, el("td", a.instance || ""));
      for (const list of [a.tools, a.topics]) {
        const td = el("td", null, "tags");
        for (const t of list) td.append(el("span", t));
        tr.append(td);
      }
      tr.append(el("td", String(a.queue), "num"));
      const br = el("td");
      br.append(badge(a.breaker));
      tr.append(br);
      body.append(tr);
    }
    $("#agents-count").textContent = `${shown} of ${this.rows.length} agents`;
    $("#agents-empty").hidden = this.rows.length > 0;
    const sel = $("#conf-agent");
    const chosen = sel.value;
    sel.replaceChildren();
    for (const a of this.rows.filter((a) => a.connected)) sel.append(new Option(`${a.id} (${a.dialect})`, a.id));
    if (chosen) sel.value = chosen;
  },
  start() {
    const es = new EventSource(api + "agents/events");
    es.addEventListener("agents", (e) => {
      this.rows = JSON.parse(e.data).agents;
      this.render();
    });
    $("#agents-filter").addEventListener("input", () => this.render());
  },
};

// ---- traffic ------------------------------------------------------------

function clock(t) {
  const d = new Date(t);
  return d.toLocaleTimeString([], { hour12: false }) + "." + String(d.getMilliseconds()).padStart(3, "0");
}

function outcome(m) {
  switch (m.kind) {
    case "refused": return "refused: " + (m.error ? m.error.code : "");
    case "failed": return "not delivered: " + m.reason;
    case "dropped": return "dropped by the mapping";
  }
  if (m.error) return m.outcome ? `${m.outcome}: ${m.error.code}` : m.error.code;
  return m.outcome || "delivered";
}

function party(id, dialect) {
  return `${id || "(anonymous)"} · ${dialect}`;
}

// pretty indents a frame that is JSON, and shows any other as it is.
function pretty(text, size) {
  if (!text) return "(none: " + (size ? "not kept" : "no frame") + ")";
  let out = text;
  try { out = JSON.stringify(JSON.parse(text), null, 2); } catch (_) { /* not JSON, or cut */ }
  if (size > text.length) out += `\n… cut: ${size} bytes in all`;
  return out;
}

const traffic = {
  es: null,
  started: false,
  paused: false,
  last: 0,        // the number of the latest message shown
  missed: 0,
  selected: null,
  query() {
    const p = new URLSearchParams();
    const agent = $("#traffic-agent").value.trim();
    if (agent) p.set("agent", agent);
    if ($("#traffic-dialect").value) p.set("dialect", $("#traffic-dialect").value);
    if ($("#traffic-act").value) p.set("act", $("#traffic-act").value);
    if ($("#traffic-errors").checked) p.set("errors", "true");
    return p;
  },
  // open follows the traffic from the message after the latest shown.
  open() {
    this.close();
    const p = this.query();
    p.set("after", String(this.last));
    this.es = new EventSource(api + "traffic/events?" + p);
    this.es.addEventListener("message", (e) => this.add(JSON.parse(e.data)));
    this.es.addEventListener("missed", (e) => {
      this.missed = JSON.parse(e.data).missed;
      this.status();
    });
    this.status();
  },
  close() {
    if (this.es) this.es.close();
    this.es = null;
  },
  start() {
    if (this.started) return;
    this.started = true;
    this.open();
  },
  // refilter starts the table again with the filter's messages.
  refilter() {
    this.last = 0;
    $("#traffic-table tbody").replaceChildren();
    if (!this.paused) this.open();
  },
  add(m) {
    this.last = Math.max(this.last, m.seq);
    const tr = el("tr");
    tr.dataset.seq = m.seq;
    if (m.failed) tr.classList.add("failed");
    tr.append(el("td", clock(m.time), "mono"), el("td", party(m.from, m.from_dialect)), el("td", party(m.to, m.to_dialect)),
      el("td", m.act || "(unread)"), el("td", m.operation || ""), el("td", outcome(m)),
      el("td", m.latency_ms === undefined ? "" : m.latency_ms.toFixed(2) + " ms", "num"));
    tr.addEventListener("click", () => this.detail(m.seq, tr));
    const body = $("#traffic-table tbody");
    body.prepend(tr);
    while (body.children.length > maxRows) body.lastElementChild.remove();
    this.status();
  },
  status() {
    const n = $("#traffic-table tbody").children.length;
    let s = this.paused ? `paused: ${n} messages shown` : `${n} messages shown (the latest ${maxRows} at most), live`;
    if (this.missed) s += `; ${this.missed} missed while the view fell behind`;
    $("#traffic-status").textContent = s;
  },
  pause() {
    this.paused = !this.paused;
    const b = $("#traffic-pause");
    b.textContent = this.paused ? "Resume" : "Pause";
    b.classList.toggle("paused", this.paused);
    if (this.paused) this.close(); else this.open();
    this.status();
  },
  async detail(seq, tr) {
    for (const r of document.querySelectorAll("#traffic-table tr.selected")) r.classList.remove("selected");
    tr.classList.add("selected");
    const pane = $("#traffic-detail");
    pane.hidden = false;
    try {
      const d = await getJSON("traffic/" + seq);
      $("#detail-title").textContent = `${d.act || "unread message"}${d.operation ? " " + d.operation : ""}: ${d.from || "?"} → ${d.to || "?"}`;
      let sum = `${d.kind} at ${clock(d.time)}`;
      if (d.latency_ms !== undefined) sum += `, ${d.latency_ms.toFixed(2)} ms after it arrived`;
      if (d.by_bridge) sum += "; made by the bridge";
      if (d.error) sum += `; error ${d.error.code}: ${d.error.message}`;
      if (d.reason) sum += `; ${d.reason}`;
      $("#detail-summary").textContent = sum;
      $("#detail-from").textContent = `(${d.from_dialect})`;
      $("#detail-to").textContent = d.kind === "refused" ? "(the error sent back)" : `(${d.to_dialect})`;
      $("#detail-received").textContent = pretty(d.received, d.received_size);
      $("#detail-delivered").textContent = pretty(d.delivered, d.delivered_size);
      const ul = $("#detail-losses");
      ul.replaceChildren();
      for (const l of d.loss_report) {
        const li = el("li");
        li.append(el("span", l.kind + " ", "kind"), el("code", l.field), document.createTextNode(": " + l.message));
        if (l.hint) li.append(el("div", "hint: " + l.hint, "muted"));
        ul.append(li);
      }
      if (!d.loss_report.length) ul.append(el("li", "nothing lost", "muted"));
    } catch (err) {
      $("#detail-title").textContent = "message " + seq;
      $("#detail-summary").textContent = err.message;
    }
  },
  init(dialects, acts) {
    fillSelect($("#traffic-dialect"), dialects);
    fillSelect($("#traffic-act"), acts);
    for (const id of ["#traffic-dialect", "#traffic-act", "#traffic-errors"]) $(id).addEventListener("change", () => this.refilter());
    let timer = 0;
    $("#traffic-agent").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => this.refilter(), 300); });
    $("#traffic-pause").addEventListener("click", () => this.pause());
  },
};

// ---- playground ---------------------------------------------------------

const playground = {
  async run(ev) {
    ev.preventDefault();
    const verdict = $("#pg-verdict");
    const cards = $("#pg-results");
    verdict.replaceChildren();
    cards.replaceChildren();
    let res;
    try {
      res = await postJSON("translate", { message: $("#pg-message").value, from: $("#pg-from").value, sender: $("#pg-sender").value.trim() });
    } catch (err) {
      verdict.append(el("p", err.message, "bad"));
      return;
    }
    if (res.error) {
      verdict.append(el("p", res.error, "bad"));
      return;
    }
    const head = el("p");
    head.append(el("strong", res.dialect), document.createTextNode(res.detected ? " (detected): " : ": "));
    head.append(res.valid ? el("span", "valid", "good") : el("span", `${res.problems.length} problem(s)`, "bad"));
    head.id = "pg-dialect";
    verdict.append(head);
    if (res.problems.length) {
      const ul = el("ul");
      ul.id = "pg-problems";
      for (const p of res.problems) {
        const li = el("li");
        if (p.path) li.append(el("code", p.path), document.createTextNode(": "));
        li.append(document.createTextNode(p.message));
        ul.append(li);
      }
      verdict.append(ul);
    }
    for (const t of res.translations) {
      const card = el("div", null, "card translation");
      card.dataset.dialect = t.to;
      card.append(el("h3", t.to));
      if (t.error) {
        card.append(el("p", t.error, "bad"));
        if (t.hint) card.append(el("p", "hint: " + t.hint, "muted"));
      } else if (t.dropped) {
        card.append(el("p", "dropped: the mapping's act policy drops it for " + t.to, "warn"));
      } else {
        card.append(el("pre", t.message, "output"));
      }
      const ul = el("ul", null, "losses");
      for (const l of t.losses) {
        const li = el("li");
        li.append(el("span", l.kind + " ", "kind"), el("code", l.field), document.createTextNode(": " + l.message));
        ul.append(li);
      }
      if (!t.losses.length && !t.error) ul.append(el("li", "nothing lost", "muted"));
      card.append(ul);
      cards.append(card);
    }
  },
  init(dialects) {
    fillSelect($("#pg-from"), dialects);
    $("#playground-form").addEventListener("submit", (ev) => this.run(ev));
  },
};

// ---- conformance --------------------------------------------------------

const conformance = {
  es: null,
  id: null,
  async run(ev) {
    ev.preventDefault();
    const byURL = document.querySelector('input[name="conf-target"]:checked').value === "url";
    const req = { level: $("#conf-level").value, operation: $("#conf-op").value.trim(), arguments: $("#conf-args").value.trim() };
    if (byURL) {
      req.url = $("#conf-url").value.trim();
      req.dialect = $("#conf-dialect").value;
    } else {
      req.agent = $("#conf-agent").value;
    }
    $("#conf-table tbody").replaceChildren();
    $("#conf-summary").textContent = "";
    let started;
    try {
      started = await postJSON("conformance", req);
    } catch (err) {
      $("#conf-status").textContent = err.message;
      return;
    }
    this.id = started.id;
    $("#conf-status").textContent = `run ${started.id}: ${started.dialect} suite against ${started.target}…`;
    $("#conf-run").disabled = true;
    $("#conf-stop").disabled = false;
    this.es = new EventSource(api + "conformance/" + started.id + "/events");
    this.es.addEventListener("note", (e) => { $("#conf-status").textContent = JSON.parse(e.data).message; });
    this.es.addEventListener("started", (e) => {
      const r = JSON.parse(e.data);
      const tr = el("tr");
      tr.dataset.id = r.id;
      const st = el("td");
      st.append(badge("running"));
      tr.append(st, el("td", r.level), el("td", r.id, "mono"), el("td", r.title), el("td", "", "num"));
      $("#conf-table tbody").append(tr);
    });
    this.es.addEventListener("result", (e) => this.result(JSON.parse(e.data)));
    this.es.addEventListener("done", (e) => this.done(JSON.parse(e.data)));
  },
  result(r) {
    let tr = document.querySelector(`#conf-table tr[data-id="${CSS.escape(r.id)}"]`);
    if (!tr) {
      tr = el("tr");
      tr.dataset.id = r.id;
      $("#conf-table tbody").append(tr);
    }
    const st = el("td");
    st.append(badge(r.status));
    const title = el("td", r.title);
    const why = [r.detail, r.frame && "frame: " + r.frame, r.path && `at ${r.path}: ${r.rule}`].filter(Boolean).join("\n");
    if (r.status !== "pass" && why) title.append(el("div", why, "why"));
    tr.replaceChildren(st, el("td", r.level), el("td", r.id, "mono"), title, el("td", r.duration_ms.toFixed(0) + " ms", "num"));
  },
  done(d) {
    this.es.close();
    $("#conf-run").disabled = false;
    $("#conf-stop").disabled = true;
    const s = $("#conf-summary");
    s.className = d.passed ? "good" : "bad";
    let text = `${d.passed ? "PASS" : "FAIL"}: MUST ${d.must.pass} passed, ${d.must.failed} failed, ${d.must.skip} skipped; ` +
      `SHOULD ${d.should.pass} passed, ${d.should.failed} warned, ${d.should.skip} skipped (${d.frames} frames from the agent, ${d.seconds.toFixed(1)} s)`;
    if (d.error) text += ". " + d.error;
    s.textContent = text;
  },
  async stop() {
    if (this.id) await postJSON("conformance/" + this.id + "/stop", {}).catch(() => {});
  },
  // target enables the inputs of the target chosen: a connected agent's
  // dialect is its own.
  target() {
    const byURL = document.querySelector('input[name="conf-target"]:checked').value === "url";
    $("#conf-url").disabled = $("#conf-dialect").disabled = !byURL;
    $("#conf-agent").disabled = byURL;
  },
  init(dialects) {
    fillSelect($("#conf-dialect"), dialects);
    for (const r of document.querySelectorAll('input[name="conf-target"]')) r.addEventListener("change", () => this.target());
    this.target();
    $("#conf-form").addEventListener("submit", (ev) => this.run(ev));
    $("#conf-stop").addEventListener("click", () => this.stop());
  },
};

// ---- chart --------------------------------------------------------------

const chart = {
  color(name) {
    return getComputedStyle(document.documentElement).getPropertyValue("--" + name).trim();
  },
  // draw plots series (each [name, values]) on a canvas, the newest value
  // at the right edge and slots points across, the y axis from 0 to the
  // largest value; a value with no neighbour is a dot.
  draw(canvas, series, slots) {
    const ctx = canvas.getContext("2d");
    const w = canvas.width, h = canvas.height, left = 44, bottom = 6;
    ctx.clearRect(0, 0, w, h);
    let top = 0;
    for (const [, vals] of series) for (const v of vals) if (v !== null && v > top) top = v;
    top = top > 0 ? top * 1.15 : 1;
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = this.color("muted");
    ctx.strokeStyle = this.color("line");
    ctx.lineWidth = 1;
    for (const f of [0, 0.5, 1]) {
      const y = h - bottom - f * (h - bottom - 6);
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(w, y); ctx.stroke();
      ctx.fillText((top * f).toPrecision(2), 2, y + 4);
    }
    const n = Math.max(2, slots);
    for (const [name, vals] of series) {
      const first = n - vals.length;
      const at = (i) => [left + ((first + i) / (n - 1)) * (w - left - 4), h - bottom - (vals[i] / top) * (h - bottom - 6)];
      ctx.strokeStyle = ctx.fillStyle = this.color(name);
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let pen = false;
      vals.forEach((v, i) => {
        if (v === null) { pen = false; return; }
        const [x, y] = at(i);
        if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
        pen = true;
      });
      ctx.stroke();
      vals.forEach((v, i) => {
        if (v === null || (vals[i - 1] ?? null) !== null || (vals[i + 1] ?? null) !== null) return;
        const [x, y] = at(i);
        ctx.beginPath(); ctx.arc(x, y, 2, 0, 2 * Math.PI); ctx.fill();
      });
    }
  },
  async update() {
    let m;
    try { m = await getJSON("metrics"); } catch (_) { return 0; }
    for (const s of document.querySelectorAll(".chart-window")) s.textContent = Math.round(m.window_s / 60) + " minutes";
    const pts = m.points;
    const slots = Math.round(m.window_s / m.every_s);
    const pick = (k) => pts.map((p) => (p[k] === undefined ? null : p[k]));
    this.draw($("#chart-rate"), [["in", pick("in")], ["out", pick("out")], ["errors", pick("errors")]], slots);
    this.draw($("#chart-latency"), [["p50", pick("p50_ms")], ["p99", pick("p99_ms")]], slots);
    const last = pts[pts.length - 1];
    if (last) {
      $("#rate-now").textContent = `now ${last.in.toFixed(1)} in, ${last.out.toFixed(1)} out`;
      $("#latency-now").textContent = last.p50_ms === undefined ? "no requests answered lately" :
        `now p50 ${last.p50_ms.toFixed(2)}, p99 ${last.p99_ms.toFixed(2)} (${last.requests} requests)`;
    }
    return m.every_s;
  },
  async start() {
    const every = await this.update();
    setInterval(() => this.update(), (every || 2) * 1000);
  },
};

// ---- start --------------------------------------------------------------

async function main() {
  let o;
  try {
    o = await getJSON("overview");
  } catch (err) {
    document.body.prepend(el("p", "The console cannot reach the bridge: " + err.message, "bad"));
    return;
  }
  $("#bridge-id").textContent = "· " + o.bridge_id;
  $("#version").textContent = o.version;
  $("#logout").hidden = !o.tokens;
  traffic.init(o.dialects, o.acts);
  playground.init(o.dialects);
  conformance.init(o.dialects);
  agents.start();
  chart.start();
  window.addEventListener("hashchange", show);
  show();
  document.body.dataset.ready = "true";
}

main();
