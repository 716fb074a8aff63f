/**
 * The studio page: one self-contained HTML document (inline style and script, no external
 * assets, works offline). Everything from the server is put in with textContent, never as HTML:
 * a model's reply or a tool's output is untrusted.
 */
export const STUDIO_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Agate studio</title>
<style>
  body { font: 13px/1.4 system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 220px 340px 1fr; height: 100vh; color: #1d2330; }
  header { grid-column: 1 / 4; padding: 6px 12px; background: #1d2330; color: #fff; display: flex; gap: 12px; align-items: center; }
  header b { font-size: 15px; } #live { font-size: 11px; opacity: .8; }
  nav, #tick-list, main { overflow: auto; border-right: 1px solid #dde; height: calc(100vh - 34px); }
  .session { display: block; width: 100%; text-align: left; padding: 6px 10px; border: 0; border-bottom: 1px solid #eef; background: #fff; cursor: pointer; }
  .session.selected, tr.tick.selected { background: #e6efff; }
  .session small { display: block; color: #667; }
  table { border-collapse: collapse; width: 100%; } td { padding: 3px 6px; border-bottom: 1px solid #f0f0f4; vertical-align: top; }
  tr.tick { cursor: pointer; } tr.tick.refused td:first-child { border-left: 3px solid #d33; }
  main { padding: 0 14px 20px; } h2 { font-size: 14px; margin: 16px 0 6px; } h3 { font-size: 13px; margin: 10px 0 4px; }
  pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.35 ui-monospace, monospace; }
  #diff div { font: 12px/1.35 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
  #diff .add { background: #e3f7e3; } #diff .remove { background: #fde6e6; } #diff .gap { color: #889; font-style: italic; }
  .pending { border: 1px solid #e0b000; background: #fff8df; padding: 8px; margin: 8px 0; }
  .pending button { margin-right: 6px; } input { font: inherit; padding: 2px 4px; }
  .muted { color: #778; } .kv td:first-child { color: #556; width: 160px; }
</style>
</head>
<body>
<header><b>Agate studio</b><span id="live"></span><span id="status" class="muted"></span></header>
<nav id="sessions" aria-label="sessions"></nav>
<div id="tick-list"><table><tbody id="ticks"></tbody></table></div>
<main id="detail"><p class="muted">Pick a session, then a tick.</p></main>
<script>
"use strict";
const state = { session: null, tick: null, timings: {} };
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  for (const child of children) if (child != null) node.append(typeof child === "string" ? child : child);
  return node;
}
async function api(path, init) {
  const response = await fetch(path, init);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}
function say(text) { document.getElementById("status").textContent = text; }

async function loadSessions() {
  const sessions = await api("/api/sessions");
  const nav = document.getElementById("sessions");
  nav.replaceChildren(...sessions.map((s) => el("button", {
    class: "session" + (s.id === state.session ? " selected" : ""), "data-id": s.id,
    onclick: () => openSession(s.id),
  }, s.id, el("small", {}, s.status + " · " + s.ticks + " ticks" + (s.live ? " · live" : "") + (s.pending.length || s.pendingCalls.length ? " · awaiting approval" : "")))));
  state.sessions = sessions;
}

async function openSession(id) {
  const started = performance.now();
  state.session = id; state.tick = null;
  for (const b of document.querySelectorAll(".session")) b.classList.toggle("selected", b.dataset.id === id);
  const ticks = await api("/api/sessions/" + encodeURIComponent(id) + "/ticks");
  const rows = ticks.map((t) => el("tr", {
    class: "tick" + (t.refused ? " refused" : ""), "data-tick": String(t.tick), onclick: () => openTick(t.tick),
  }, el("td", {}, "#" + t.tick), el("td", {}, t.calls.length ? t.calls.join(", ") : (t.reply || "—")), el("td", { class: "muted" }, t.durationMs + " ms")));
  document.getElementById("ticks").replaceChildren(...rows);
  const session = (state.sessions || []).find((s) => s.id === id);
  const detail = document.getElementById("detail");
  detail.replaceChildren(pendingBox(session), ticks.length ? el("p", { class: "muted" }, ticks.length + " ticks recorded. Pick one.") : el("p", { class: "muted" }, "This session kept no tick log (run it with tickLog, or agate run --studio)."));
  state.timings.list = performance.now() - started;
  document.body.dataset.listedTicks = String(ticks.length);
}

function pendingBox(session) {
  if (!session || (session.pending.length === 0 && session.pendingCalls.length === 0)) return null;
  const by = el("input", { id: "by", placeholder: "your name", value: "" });
  const feedback = el("input", { id: "feedback", placeholder: "feedback (to reject) or reason (to deny)", size: "34" });
  const box = el("div", { class: "pending", id: "pending" }, el("b", {}, "Awaiting approval"), el("div", {}, "Decide as: ", by, " ", feedback));
  const post = (path, body, said) => async () => {
    try {
      const result = await api("/api/sessions/" + encodeURIComponent(session.id) + path, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body()) });
      say(said + " (ledger #" + result.seq + (result.signed ? ", signed" : ", unsigned") + ")");
      await loadSessions(); await openSession(session.id);
    } catch (error) { say(error.message); }
  };
  for (const p of session.pending) {
    const at = "/checkpoints/" + encodeURIComponent(p.id) + "/";
    box.append(el("div", { "data-checkpoint": p.id }, el("b", {}, p.id), " ", el("span", { class: "muted" }, p.reason || ""), " ",
      el("button", { class: "approve", onclick: post(at + "approve", () => ({ by: by.value }), "Approved " + p.id) }, "Approve"),
      el("button", { class: "reject", onclick: post(at + "reject", () => ({ by: by.value, feedback: feedback.value }), "Rejected " + p.id) }, "Reject")));
  }
  // A held call shows what the model asked for (its input is untrusted: text only, cut short).
  for (const c of session.pendingCalls) {
    const at = "/tool-calls/" + encodeURIComponent(c.id) + "/";
    box.append(el("div", { "data-tool-call": c.id }, el("b", {}, c.toolName), " ", el("code", { class: "call-input" }, c.input), " ",
      el("span", { class: "muted" }, c.id + " · tick " + c.tick), " ",
      el("button", { class: "approve", onclick: post(at + "approve", () => ({ by: by.value }), "Approved " + c.toolName + " " + c.id) }, "Approve"),
      el("button", { class: "deny", onclick: post(at + "deny", () => ({ by: by.value, reason: feedback.value }), "Denied " + c.toolName + " " + c.id) }, "Deny")));
  }
  return box;
}

const CONTEXT_LINES = 3;
function diffView(diff) {
  // Changed lines with a few around them; each run of unchanged lines folds into one line.
  const show = new Array(diff.length).fill(false);
  diff.forEach((d, i) => {
    if (d.op === "same") return;
    for (let k = Math.max(0, i - CONTEXT_LINES); k <= Math.min(diff.length - 1, i + CONTEXT_LINES); k++) show[k] = true;
  });
  const out = [];
  for (let i = 0; i < diff.length;) {
    if (show[i]) {
      const d = diff[i++];
      out.push(el("div", { class: d.op }, (d.op === "add" ? "+ " : d.op === "remove" ? "- " : "  ") + d.text));
      continue;
    }
    let j = i; while (j < diff.length && !show[j]) j++;
    out.push(el("div", { class: "gap" }, "… " + (j - i) + " unchanged line" + (j - i === 1 ? "" : "s")));
    i = j;
  }
  if (!diff.some((d) => d.op !== "same")) out.unshift(el("div", { class: "gap" }, "(no change)"));
  return out;
}

function section(title, ...children) { return [el("h2", {}, title), ...children]; }
function kv(entries) { return el("table", { class: "kv" }, ...entries.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, el("pre", {}, typeof v === "string" ? v : JSON.stringify(v, null, 1)))))); }

async function openTick(n) {
  const started = performance.now();
  state.tick = n;
  // Only the rows that change: a walk over a 1,000-row list restyles every row.
  for (const r of document.querySelectorAll("tr.tick.selected")) r.classList.remove("selected");
  document.querySelector('tr.tick[data-tick="' + n + '"]')?.classList.add("selected");
  const d = await api("/api/sessions/" + encodeURIComponent(state.session) + "/ticks/" + n);
  const r = d.record;
  const session = (state.sessions || []).find((s) => s.id === state.session);
  const parts = [pendingBox(session), el("h1", { style: "font-size:16px" }, "Tick " + r.tick)];
  parts.push(...section(d.diff ? "Context: changes since tick " + d.previousTick : "Context (first kept tick)",
    el("div", { id: "diff" }, ...(d.diff ? diffView(d.diff) : d.lines.map((l) => el("div", { class: "same" }, "  " + l))))));
  const whole = el("details", {}, el("summary", {}, "Whole context as the model saw it (" + d.lines.length + " lines)"), el("pre", { id: "context" }, d.lines.join("\\n")));
  parts.push(whole);
  parts.push(...section("Reply", el("pre", { id: "reply" }, r.reply.text || "(no text)"), r.reply.reasoning ? el("pre", { class: "muted" }, "reasoning: " + r.reply.reasoning) : null));
  parts.push(...section("Tool calls", r.calls.length ? el("div", { id: "calls" }, ...r.calls.map((c) => el("div", {}, el("h3", {}, c.toolName + (c.refusedBy ? " — refused by " + c.refusedBy : c.isError ? " — error" : "")), kv([["input", c.input], ["output", c.output === undefined ? "(none)" : c.output]])))) : el("p", { class: "muted" }, "none")));
  parts.push(...section("Gates and knobs", kv([["gates", r.gates], ["knobs", r.knobs]])));
  parts.push(...section("Guard decisions", r.decisions.length ? el("div", { id: "decisions" }, ...r.decisions.map((e) => el("pre", {}, e.type + " " + JSON.stringify(Object.fromEntries(Object.entries(e).filter(([k]) => k !== "type" && k !== "tick")))))) : el("p", { class: "muted" }, "none")));
  parts.push(...section("Budget, usage and timing", kv([["pruned", r.pruned || "nothing left out"], ["usage", r.reply.usage || "(no model call)"], ["finish", r.reply.finishReason || "—"], ["started", r.startedAt], ["duration", r.durationMs + " ms"]])));
  document.getElementById("detail").replaceChildren(...parts.filter(Boolean));
  state.timings.tick = performance.now() - started;
  document.body.dataset.shownTick = String(n);
}

const events = new EventSource("/api/events");
events.addEventListener("open", () => { document.getElementById("live").textContent = "● connected"; });
events.addEventListener("changed", async (message) => {
  const { sessionId } = JSON.parse(message.data);
  await loadSessions();
  if (sessionId === state.session) {
    const tick = state.tick; await openSession(sessionId); if (tick !== null) await openTick(tick);
  }
});
window.studioTimings = state.timings;
loadSessions().catch((error) => say(error.message));
</script>
</body>
</html>
`;
