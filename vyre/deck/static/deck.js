// The Deck's only script. Pages work as plain HTML; this adds inline editing, Find's
// Answer card, the passkey flows and a quiet "memory changed" check that sleeps while the
// tab is hidden. No framework, no build step.
"use strict";

const ORIGIN_HEADERS = { "content-type": "application/json" };

async function post(url, body) {
  const r = await fetch(url, {
    method: "POST", headers: ORIGIN_HEADERS, body: JSON.stringify(body || {}),
    credentials: "same-origin",
  });
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) throw new Error((data && data.error) || ("HTTP " + r.status));
  return data;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// -- "memory changed": ask for the scope's version, never while the tab is hidden ------------

function watchVersion() {
  const body = document.body;
  const version = body.dataset.version;
  if (!version) return;
  let timer = null;
  async function check() {
    timer = null;
    if (document.hidden) return;
    try {
      const r = await fetch("/api/version?scope=" + encodeURIComponent(body.dataset.scope || "*"),
        { credentials: "same-origin" });
      const data = await r.json();
      if (data.version && data.version !== version) {
        document.getElementById("changed").hidden = false;
        return; // said once; the reader reloads when they like
      }
    } catch (e) { /* the daemon may be restarting: try again later */ }
    schedule();
  }
  function schedule() { if (!timer && !document.hidden) timer = setTimeout(check, 15000); }
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) { clearTimeout(timer); timer = null; } else schedule();
  });
  window.deckVersionChecks = () => timer !== null; // for the browser tests
  schedule();
}

// -- Memory: pin, mute, correct inline, undo -------------------------------------------------

function factActions() {
  document.querySelectorAll("[data-fact]").forEach((item) => {
    const id = item.dataset.fact;
    item.querySelectorAll("button[data-act]").forEach((button) => {
      button.addEventListener("click", () => act(item, id, button.dataset.act));
    });
  });
  document.querySelectorAll("button[data-undo]").forEach((button) => {
    button.addEventListener("click", () => undo(button.dataset.undo, button));
  });
  document.querySelectorAll("form[data-conflict]").forEach((form) => {
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const choice = ev.submitter;
      try {
        const done = await post("/api/conflicts", JSON.parse(choice.dataset.settle));
        report(form, done);
      } catch (e) { say(form, e.message); }
    });
  });
}

function say(where, text) {
  let out = where.querySelector(".said");
  if (!out) { out = el("p", { class: "said meta", role: "status" }); where.append(out); }
  out.textContent = text;
  return out;
}

function report(where, done) {
  const out = say(where, done.said);
  if (done.undo) {
    const b = el("button", { type: "button", "data-undo": String(done.undo), text: "Undo" });
    b.addEventListener("click", () => undo(done.undo, b));
    out.append(" ", b);
  }
}

async function undo(id, button) {
  try {
    const done = await post("/api/corrections/" + encodeURIComponent(id) + "/undo");
    const where = button.closest("[data-fact], form, li, section") || document.body;
    say(where, done.said);
  } catch (e) { button.replaceWith(el("span", { class: "meta", text: e.message })); }
}

async function act(item, id, what) {
  if (what === "correct") return openEditor(item, id);
  try {
    const done = await post("/api/facts/" + encodeURIComponent(id) + "/" + what);
    report(item, done);
  } catch (e) { say(item, e.message); }
}

function openEditor(item, id) {
  if (item.querySelector(".editor")) { item.querySelector(".editor input").focus(); return; }
  const text = item.querySelector(".fact-text");
  const current = item.dataset.object || "";
  const input = el("input", { type: "text", value: current, "aria-label": "The right value" });
  const hint = el("span", { class: "meta", text: "Ctrl+Enter saves · Esc cancels" });
  const editor = el("div", { class: "editor" }, input, hint);
  text.after(editor);
  input.focus();
  input.select();
  input.addEventListener("keydown", async (ev) => {
    if (ev.key === "Escape") { editor.remove(); item.querySelector("button[data-act='correct']").focus(); }
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      const value = input.value.trim();
      if (!value || value === current) { editor.remove(); return; }
      try {
        const done = await post("/api/facts/" + encodeURIComponent(id) + "/correct",
          { action: "replace", object: value });
        editor.remove();
        text.textContent = done.fact || text.textContent;
        report(item, done);
      } catch (e) { hint.textContent = e.message; }
    }
  });
}

// -- Find: recall hits, and an Answer card for questions ------------------------------------

const QUESTION = /^(who|what|when|where|which|why|how|did|do|is|was)\b/i;
function isQuestion(text) { const t = text.trim(); return t.endsWith("?") || QUESTION.test(t); }

function find() {
  const box = document.getElementById("find-q");
  if (!box) return;
  const scope = document.body.dataset.scope || "*";
  let timer = null;
  let asked = "";
  let n = 0;
  async function run() {
    timer = null;
    const q = box.value.trim();
    if (!q || q === asked) return;
    asked = q;
    const id = "deck_" + (++n);
    history.replaceState(null, "", "/find?scope=" + encodeURIComponent(scope) + "&q=" + encodeURIComponent(q));
    searchHits(q, scope);
    const slot = document.getElementById("answer");
    slot.replaceChildren();
    if (isQuestion(q)) ask(q, scope, id, slot, () => n === Number(id.slice(5)));
  }
  box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 700); });
  box.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { ev.preventDefault(); clearTimeout(timer); asked = ""; run(); }
  });
  if (box.value.trim()) { asked = ""; run(); }
}

async function searchHits(q, scope) {
  const list = document.getElementById("hits");
  const r = await fetch("/api/recall?scope=" + encodeURIComponent(scope) + "&q=" + encodeURIComponent(q),
    { credentials: "same-origin" });
  const data = await r.json();
  list.replaceChildren();
  if (data.error) { list.append(el("li", { class: "meta", text: data.error })); return; }
  if (!data.hits.length) { list.append(el("li", { class: "meta", text: "No turns match." })); return; }
  for (const h of data.hits) {
    const link = el("a", { href: h.link, text: h.name });
    list.append(el("li", {}, link, el("span", { class: "meta", text: " · " + h.when + " · " + h.by }),
      el("blockquote", { text: h.quote })));
  }
}

async function ask(question, scope, id, slot, current) {
  const card = el("section", { class: "card", "aria-live": "polite", "aria-label": "Answer" });
  const stage = el("p", { class: "meta", text: "understanding" });
  card.append(stage);
  slot.append(card);
  let reply = null;
  try {
    const r = await fetch("/api/ask", {
      method: "POST", headers: ORIGIN_HEADERS, credentials: "same-origin",
      body: JSON.stringify({ question, scope, id, stream: true }),
    });
    if (!r.ok) throw new Error("HTTP " + r.status);
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const ev = parseEvent(block);
        if (!ev || (ev.data.id && ev.data.id !== id)) continue; // another question's events
        if (ev.event === "memory.thinking") stage.textContent = ev.data.stage;
        if (ev.event === "reply") reply = ev.data;
      }
    }
  } catch (e) {
    stage.textContent = "Memory could not answer: " + e.message;
    return;
  }
  if (!current() || !reply) return;
  drawAnswer(card, reply, question);
}

function parseEvent(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trim());
  }
  try { return { event, data: JSON.parse(data.join("\n") || "{}") }; } catch (e) { return null; }
}

function drawAnswer(card, reply, question) {
  card.replaceChildren();
  if (reply.error) { card.append(el("p", { class: "answer", text: reply.error })); return; }
  if (reply.limited) { card.append(el("p", { class: "answer", text: reply.message })); return; }
  // After a fix the card says so, with Undo, for as long as it is on screen.
  const corrected = reply.fix !== undefined || reply.via === "corrected";
  function undoLine(meta) {
    meta.append("you corrected this");
    if (reply.fix !== undefined) {
      const undoButton = el("button", { type: "button", class: "wrong", text: "Undo" });
      undoButton.addEventListener("click", () => undoAnswer(card, reply, question));
      meta.append(" · ", undoButton);
    }
  }
  if (reply.abstained) {
    card.append(el("p", { class: "answer", text: "Not sure yet." }));
    if (reply.known && reply.known.length) {
      card.append(el("p", { class: "meta", text: "What memory does know:" }));
      const ul = el("ul", {});
      for (const k of reply.known) ul.append(el("li", { text: k }));
      card.append(ul);
    }
    if (corrected) { const meta = el("p", { class: "meta" }); undoLine(meta); card.append(meta); }
    // A "not sure" card has no "Wrong?": the field is always open, empty.
    const input = el("input", { type: "text", placeholder: "Know it? Tell me", "aria-label": "Know it? Tell me" });
    card.append(el("div", { class: "editor" }, input));
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && input.value.trim()) fixAnswer(card, reply, question, "replace", input.value.trim());
    });
    return;
  }
  const answer = el("p", { class: "answer", text: reply.answer });
  const meta = el("p", { class: "meta" });
  if (corrected) {
    undoLine(meta);
  } else {
    meta.append("confidence " + reply.confidence.toFixed(1) + " · " + reply.from + " · ");
    const wrong = el("button", { type: "button", class: "wrong", "aria-expanded": "false", text: "Wrong?" });
    wrong.addEventListener("click", () => openWrong(card, reply, question, wrong));
    meta.append(wrong);
  }
  card.append(answer, meta);
  // A correction's one source ("your correction") is not drawn as a chip.
  const linked = reply.sources.filter((s) => s.link);
  if (!linked.length) return;
  const chips = el("div", { class: "chips" });
  linked.forEach((s, i) => {
    const chip = el("a", { class: "chip", href: s.link }, s.name,
      el("span", { class: "mono", text: (s.when ? s.when + " · " : "") + s.quote }));
    if (i >= 3) chip.hidden = true;
    chips.append(chip);
  });
  if (linked.length > 3) {
    const more = el("button", { type: "button", class: "ghost", text: "More" });
    more.addEventListener("click", () => {
      chips.querySelectorAll("a[hidden]").forEach((a) => { a.hidden = false; });
      more.remove();
    });
    chips.append(more);
  }
  card.append(chips);
}

function openWrong(card, reply, question, wrong) {
  if (card.querySelector(".fix")) return;
  wrong.setAttribute("aria-expanded", "true");
  const thatsWrong = el("button", { type: "button", class: "ghost", text: "That's wrong" });
  const forget = el("button", { type: "button", class: "ghost", text: "Forget this" });
  const input = el("input", { type: "text", value: reply.answer, "aria-label": "The right answer" });
  const row = el("div", { class: "editor fix" }, thatsWrong, forget, input);
  card.append(row);
  input.focus();
  thatsWrong.addEventListener("click", () => fixAnswer(card, reply, question, "wrong"));
  forget.addEventListener("click", () => fixAnswer(card, reply, question, "forget"));
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { row.remove(); wrong.setAttribute("aria-expanded", "false"); wrong.focus(); }
    if (ev.key === "Enter" && input.value.trim()) fixAnswer(card, reply, question, "replace", input.value.trim());
  });
}

async function fixAnswer(card, reply, question, action, object) {
  try {
    const next = await post("/api/answers/" + encodeURIComponent(reply.answer_id) + "/correct",
      { action, object, question, scope: document.body.dataset.scope || "*" });
    drawAnswer(card, next, question);
  } catch (e) { say(card, e.message); }
}

async function undoAnswer(card, reply, question) {
  try {
    const next = await post("/api/fixes/" + encodeURIComponent(reply.fix) + "/undo",
      { question, scope: document.body.dataset.scope || "*" });
    drawAnswer(card, next, question);
  } catch (e) { say(card, e.message); }
}

// -- Passkeys: register once (with a code from the terminal), confirm presence per action ----

function b64urlToBytes(s) {
  const pad = "=".repeat((4 - (s.length % 4)) % 4);
  const bin = atob((s + pad).replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
function bytesToB64url(buf) {
  const bin = String.fromCharCode(...new Uint8Array(buf));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function creationOptions(o) {
  o.challenge = b64urlToBytes(o.challenge);
  o.user.id = b64urlToBytes(o.user.id);
  o.excludeCredentials = (o.excludeCredentials || []).map((c) => ({ ...c, id: b64urlToBytes(c.id) }));
  return o;
}
function requestOptions(o) {
  o.challenge = b64urlToBytes(o.challenge);
  o.allowCredentials = (o.allowCredentials || []).map((c) => ({ ...c, id: b64urlToBytes(c.id) }));
  return o;
}
function credentialJSON(cred) {
  const r = cred.response;
  const out = { id: cred.id, rawId: bytesToB64url(cred.rawId), type: cred.type, response: {
    clientDataJSON: bytesToB64url(r.clientDataJSON) } };
  if (r.attestationObject) {
    out.response.attestationObject = bytesToB64url(r.attestationObject);
    if (r.getTransports) out.response.transports = r.getTransports();
  } else {
    out.response.authenticatorData = bytesToB64url(r.authenticatorData);
    out.response.signature = bytesToB64url(r.signature);
    out.response.userHandle = r.userHandle ? bytesToB64url(r.userHandle) : null;
  }
  return out;
}

function passkeys() {
  const register = document.getElementById("register-passkey");
  if (register) {
    register.addEventListener("click", async () => {
      const status = document.getElementById("passkey-status");
      try {
        const code = register.dataset.code;
        const options = await post("/api/passkey/options", { code });
        const cred = await navigator.credentials.create({ publicKey: creationOptions(options) });
        const done = await post("/api/passkey/register", { code, credential: credentialJSON(cred) });
        status.textContent = done.said;
      } catch (e) { status.textContent = "Not registered: " + e.message; }
    });
  }
  document.querySelectorAll("button[data-presence]").forEach((button) => {
    button.addEventListener("click", async () => {
      const row = button.closest("tr") || button.parentElement;
      const [action, lesson] = button.dataset.presence.split(":");
      try {
        const options = await post("/api/presence/options", { action, lesson });
        const cred = await navigator.credentials.get({ publicKey: requestOptions(options) });
        const done = await post("/api/lessons/" + encodeURIComponent(lesson) + "/" + action,
          { credential: credentialJSON(cred) });
        say(row, done.said);
      } catch (e) { say(row, "Not done: " + e.message); }
    });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  watchVersion();
  factActions();
  find();
  passkeys();
});
