// The GM console's tools that follow the fight: conditions, each card's quick changes and
// removal, the initiative by hand, the decided fight (close or continue), the closed
// banner with the proof status, disputes in the header with their answers, "undo to
// here" from the history view, and focus and messages that behave after each action.
import { api } from "../lib/api.js";
import { html, patch, $, $$, setOptions, say } from "../lib/dom.js";
import { t, localized } from "../i18n/index.js";
import { confirmClose, confirmRemove } from "../lib/confirm.js";
import { setupButtons, onSetupCard } from "./setup.js";

const COMMON_CONDITIONS = ["prone", "stunned", "grappled", "blinded", "frightened", "bleeding"];

// --- shells (inside the GM's fieldset) --------------------------------------------------

export function conditionsShell() {
  return html`
    <section class="card" id="cond-card" data-fold aria-labelledby="cond-title">
      <h2 id="cond-title">${t("conditions")}</h2>
      <form id="cond-form" class="grid-form" novalidate>
        <label>${t("combatant")} <select name="combatant" id="cond-combatant"></select></label>
        <label>${t("condition")} <input name="name" id="cond-name" list="cond-list" maxlength="40" required autocomplete="off"></label>
        <datalist id="cond-list">${COMMON_CONDITIONS.map((n) => html`<option value="${n}">`)}</datalist>
        <label>${t("cond_rounds")} <input name="rounds" id="cond-rounds" type="number" min="1" max="100" inputmode="numeric"></label>
        <label>${t("cond_until")} <select name="until" id="cond-until">
          <option value="end_of_turn">${t("cond_end")}</option>
          <option value="start_of_turn">${t("cond_start")}</option></select></label>
        <label>${t("cond_modifier")} <input name="modifier" id="cond-mod" type="number" min="-100" max="100" inputmode="numeric"></label>
        <label class="wide">${t("cond_note")} <input name="note" id="cond-note" maxlength="200"></label>
        <div class="wide"><button type="submit">${t("cond_apply")}</button>
          <span id="cond-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>`;
}

/** What the turn card gains: the decided fight, reasons, the initiative by hand. */
export function turnExtras() {
  return html`<div id="gm-decision" aria-live="polite"></div>
    <p id="turn-why" class="reason small"></p>
    <div id="gm-order"></div>`;
}

export function hideShell() {
  return html`<fieldset class="wide hide-res"><legend>${t("hidden_at_add")}</legend><span id="add-hidden"></span></fieldset>`;
}

/** The resources ticked "hidden" in the add form. */
export function hiddenChosen() {
  return $$("#add-hidden input[data-hide]:checked").map((el) => el.dataset.hide);
}

// --- each combatant's card (on the board, GM only) -------------------------------------

// The resource each card's quick buttons change, by name (never by position): the GM's
// pick survives every re-render and any order the resources come in; "hp" by default.
const quickPick = new Map();

function quickResource(c) {
  const res = Object.keys(c.resources);
  const wanted = quickPick.get(c.id);
  if (wanted && res.includes(wanted)) return wanted;
  return res.includes("hp") ? "hp" : res[0];
}

export function cardTools(app, b, c) {
  const off = b.encounter.closed || app.viewAt !== null;
  const dis = off ? html`disabled aria-disabled="true"` : "";
  const res = Object.keys(c.resources);
  const chosen = quickResource(c);
  const pick = res.length > 1
    ? html`<select data-quick-res aria-label="${t("resource")} ${c.name}" ${dis}>${res.map((r) => html`<option value="${r}" ${r === chosen ? "selected" : ""}>${r}</option>`)}</select>`
    : html`<span class="muted small">${res[0] || ""}</span>`;
  const quick = res.length ? html`<div class="quick">${pick}
      ${[-5, -1, 1, 5].map((d) => html`<button type="button" class="ghost q" data-quick="${d}" ${dis}
        aria-label="${c.name} ${d > 0 ? "+" : ""}${d}">${d > 0 ? "+" : "−"}${Math.abs(d)}</button>`)}
      <input type="number" data-custom class="q-custom" aria-label="${t("quick_custom")} ${c.name}" placeholder="±" ${dis}>
      <button type="button" class="ghost q" data-quick="custom" ${dis}>${t("quick_apply")}</button></div>` : "";
  const conds = (c.conditions || []).map((k) => html`<button type="button" class="ghost uncond" data-uncond="${k.name}" ${dis}
      aria-label="${t("cond_remove", { name: k.name })}">× ${k.name}</button>`);
  return html`<div class="gm-tools" data-tools="${c.id}">${quick}
    <div class="tool-row">${conds}
      ${setupButtons(c, dis)}
      <button type="button" class="ghost remove" data-remove="${c.id}" ${dis}>${t("remove_combatant")}</button></div>
    <span class="form-msg" data-card-msg role="status"></span></div>`;
}

function bindCards(app) {
  $("#sides").addEventListener("change", (e) => {
    const sel = e.target.closest("select[data-quick-res]");
    const box = sel && sel.closest("[data-tools]");
    if (box) quickPick.set(box.dataset.tools, sel.value);
  });
  $("#sides").addEventListener("click", async (e) => {
    const btn = e.target.closest("button");
    const box = btn && btn.closest("[data-tools]");
    if (!box || btn.disabled) return;
    const cid = box.dataset.tools;
    const msg = $("[data-card-msg]", box);
    clearMessages();
    if (btn.dataset.duplicate || btn.dataset.keep) {
      await onSetupCard(app, btn, cid, msg);
      return;
    }
    let body = null;
    if (btn.dataset.quick) {
      const c = app.board.combatants.find((x) => x.id === cid);
      const resource = quickResource(c);
      let delta = Number(btn.dataset.quick);
      if (btn.dataset.quick === "custom") {
        const raw = $("[data-custom]", box).value.trim();
        if (!raw || !Number.isInteger(Number(raw)) || Number(raw) === 0) {
          say(msg, t("change_empty"), true);
          $("[data-custom]", box).focus();
          return;
        }
        delta = Number(raw);
      }
      body = { type: "adjust", combatant: cid, resource, delta, reason: "GM" };
    } else if (btn.dataset.uncond) {
      body = { type: "remove_condition", combatant: cid, name: btn.dataset.uncond };
    } else if (btn.dataset.remove) {
      const who = (app.board?.combatants || []).find((c) => c.id === cid);
      if (!(await confirmRemove(who ? who.name : cid, Boolean(app.board?.started)))) return;
      body = { type: "remove_combatant", combatant: cid, reason: "GM" };
    }
    if (!body) return;
    const ok = await app.send(body, msg);
    if (ok) keepFocus(app, `[data-tools="${cid}"] button[data-quick="${btn.dataset.quick || ""}"]`);
  });
}

// --- conditions form --------------------------------------------------------------------

function bindConditions(app) {
  $("#cond-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    const msg = $("#cond-msg");
    const name = f.name.value.trim();
    if (!name) {
      say(msg, t("cond_name_needed"), true);
      f.name.setAttribute("aria-invalid", "true");
      f.name.focus();
      return;
    }
    f.name.removeAttribute("aria-invalid");
    const body = { type: "apply_condition", combatant: f.combatant.value, name, until: f.until.value };
    if (f.rounds.value.trim()) body.rounds = Number(f.rounds.value);
    if (f.modifier.value.trim()) body.modifier = Number(f.modifier.value);
    if (f.note.value.trim()) body.note = f.note.value.trim();
    const ok = await app.send(body, msg);
    if (ok) {
      f.name.value = "";
      f.note.value = "";
      f.name.focus();
    }
  });
}

// --- initiative by hand, the decided fight ---------------------------------------------

function renderOrder(app, b) {
  // The server says whether a hand-set order is accepted now (TC-4: not mid-fight in d100-tcs).
  const reorder = b.reorder || { enabled: !b.encounter.closed };
  const off = b.encounter.closed || !b.order.length || !reorder.enabled;
  const why = !b.encounter.closed && reorder.reason
    ? html`<p class="reason small" data-reorder-off>${localized(reorder, "reason")}${reorder.rule ? html` <code class="rule">${reorder.rule}</code>` : ""}</p>` : "";
  patch($("#gm-order"), b.order.length ? html`<h3>${t("order_hand")}</h3>${why}
    <ol class="order-hand">${b.order.map((o, i) => html`<li data-oid="${o.id}"><span>${o.name}</span>
      <button type="button" class="ghost" data-move="-1" data-oid="${o.id}" ${off || i === 0 ? "disabled" : ""}
        aria-label="${t("move_up", { name: o.name })}">↑</button>
      <button type="button" class="ghost" data-move="1" data-oid="${o.id}" ${off || i === b.order.length - 1 ? "disabled" : ""}
        aria-label="${t("move_down", { name: o.name })}">↓</button></li>`)}</ol>` : "");
}

function renderDecision(app, b) {
  patch($("#gm-decision"), b.decided ? html`<div class="decision card-inset" role="alert">
      <p><b>${t("decided", { side: b.winner })}</b> <span class="muted small">${t("decided_hint")}</span></p>
      <div class="buttons"><button type="button" class="danger" data-decide="close">${t("close_reveal")}</button>
        <button type="button" class="secondary" data-decide="continue">${t("continue_fight")}</button></div></div>` : "");
}

function bindTurnExtras(app) {
  $("#gm-order").addEventListener("click", async (e) => {
    const btn = e.target.closest("button[data-move]");
    if (!btn || btn.disabled) return;
    const ids = app.board.order.map((o) => o.id);
    const i = ids.indexOf(btn.dataset.oid);
    const j = i + Number(btn.dataset.move);
    if (i < 0 || j < 0 || j >= ids.length) return;
    [ids[i], ids[j]] = [ids[j], ids[i]];
    clearMessages();
    const ok = await app.send({ type: "set_initiative", order: ids }, $("#gm-msg"));
    if (ok) keepFocus(app, `#gm-order button[data-oid="${btn.dataset.oid}"][data-move="${btn.dataset.move}"]`);
  });
  $("#gm-decision").addEventListener("click", async (e) => {
    const btn = e.target.closest("button[data-decide]");
    if (!btn) return;
    clearMessages();
    const closing = btn.dataset.decide === "close";
    if (closing && !(await confirmClose())) return;
    const body = closing ? { type: "close", reason: "" } : { type: "continue_combat" };
    await app.send(body, $("#gm-msg"));
    keepFocus(app, "#turn-card");
  });
}

// --- closed: one banner, every control off ----------------------------------------------

let verified = null;

function renderClosed(app, b) {
  let banner = $("#gm-closed");
  if (!b.encounter.closed) {
    if (banner) banner.remove();
    return;
  }
  if (!banner) {
    banner = document.createElement("div");
    banner.id = "gm-closed";
    banner.className = "closed-banner card";
    banner.setAttribute("role", "status");
    $("#controls").before(banner);
  }
  if (verified === null || verified.id !== app.id || verified.version < b.version) {
    verified = { id: app.id, version: b.version, report: null };
    api.verify(app.id, app.token).then((r) => {
      verified.report = r;
      renderClosed(app, app.board);
    }).catch(() => { verified = null; });
  }
  const r = verified.report;
  const ok = r && r.chain && r.dice;
  const proof = !r ? t("verifying")
    : ok ? t("verified_ok", { n: r.rolls_checked }) : t("verified_bad", { problem: r.first_problem || "?" });
  patch(banner, html`<p><b>${t("closed_banner")}</b> · <span class="proof ${ok ? "ok" : r ? "bad" : ""}" data-proof="${r ? (ok ? "verified" : "failed") : "pending"}">${proof}</span></p>
    <p><a id="audit-bundle" href="/api/encounters/${app.id}/export?format=json" download="fracas-${app.id}.json">${t("audit_bundle")}</a></p>`);
  // Every control but the answers to disputes, which may still follow a close (CONTRACT 4).
  for (const el of $$("#controls button, #controls input, #controls select, #controls textarea")) {
    if (!el.closest("#gm-disputes")) el.disabled = true;
  }
}

// --- disputes: the header count, names, answers -----------------------------------------

function renderDisputeCount(b) {
  let badge = $("#dispute-count");
  const open = b.disputes.filter((d) => d.status !== "answered").length;
  if (!badge) {
    badge = document.createElement("a");
    badge.id = "dispute-count";
    badge.className = "badge dispute-count";
    badge.href = "#disputes-title";
    $("#role-badge").after(badge);
  }
  badge.hidden = open === 0;
  badge.dataset.count = String(open);
  badge.textContent = `⚑ ${t("disputes_open", { n: open })}`;
}

/** One dispute as the GM sees it: who (by name), why, the roll's audit, its answer. */
export function disputeItem(d, a, detail) {
  const answered = d.status === "answered";
  return html`<li data-roll="${d.roll}" class="${answered ? "answered" : "open"}">
    <button type="button" class="link" data-roll="${d.roll}">${t("roll_n", { n: d.roll })}</button>
    <span class="dispute-by">${t("disputed_by", { by: d.by_name || d.by, reason: d.reason })}</span>
    ${a ? detail : ""}
    ${answered ? html`<p class="answer"><b>${t("dispute_answered", { answer: d.answer })}</b></p>`
      : html`<form class="answer-form row-form" data-answer="${d.roll}">
        <label>${t("dispute_answer_label", { n: d.roll })} <input name="answer" maxlength="2000" required></label>
        <button type="submit">${t("dispute_answer")}</button></form>`}
  </li>`;
}

function bindDisputes(app) {
  $("#gm-disputes").addEventListener("submit", async (e) => {
    const form = e.target.closest("form[data-answer]");
    if (!form) return;
    e.preventDefault();
    const answer = form.answer.value.trim();
    const msg = $("#disputes-msg");
    clearMessages();
    if (!answer) {
      say(msg, t("dispute_answer_label", { n: form.dataset.answer }), true);
      form.answer.focus();
      return;
    }
    const ok = await app.send({ type: "answer_dispute", roll: Number(form.dataset.answer), answer }, msg);
    if (ok) keepFocus(app, "#disputes-title");
  });
}

// --- history: undo to here ---------------------------------------------------------------

function renderUndoHere(app, b) {
  let btn = $("#hist-undo");
  if (!btn) {
    btn = document.createElement("button");
    btn.type = "button";
    btn.id = "hist-undo";
    btn.className = "danger";
    $("#hist-live").after(btn);
    btn.addEventListener("click", async () => {
      const v = app.viewAt;
      if (v === null) return;
      const ok = await app.send({ type: "undo", reason: `GM: back to version ${v}`, to_version: v }, $("#hist-state"));
      if (ok) $("#hist-live").click();
    });
  }
  const live = app.board;
  btn.hidden = app.viewAt === null || live.encounter.closed;
  if (app.viewAt !== null) btn.textContent = t("undo_to_here", { v: app.viewAt });
}

// --- messages and focus ------------------------------------------------------------------

/** Every message of the console goes when the next action starts. */
export function clearMessages() {
  for (const el of $$("#controls .form-msg, #sides [data-card-msg]")) {
    el.textContent = "";
    el.className = "form-msg";
  }
}

let focusWanted = null;

/** After an action button, keep the keyboard in the panel: the same button if it is
 * still there after the board re-renders, else the panel itself. */
export function keepFocus(app, selector) {
  focusWanted = { selector, until: Date.now() + 3000 };
  restoreFocus();
}

function restoreFocus() {
  if (!focusWanted || Date.now() > focusWanted.until) {
    focusWanted = null;
    return;
  }
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected && !active.disabled) return;
  const el = $(focusWanted.selector);
  const target = el && !el.disabled ? el : $("#turn-card");
  if (target) target.focus();
}

// --- wiring ------------------------------------------------------------------------------

export function bindTools(app) {
  bindCards(app);
  bindConditions(app);
  bindTurnExtras(app);
  bindDisputes(app);
  // A message belongs to the action that made it: the next click or submit clears them.
  const controls = $("#controls");
  controls.addEventListener("submit", () => clearMessages(), true);
  controls.addEventListener("click", (e) => {
    const btn = e.target.closest("button");
    if (btn && !btn.closest("#share") && !btn.dataset.copy) clearMessages();
    // An action button replaced by the next board: keep the keyboard in the turn panel.
    if (btn && btn.closest("#gm-actions, #gm-pending")) keepFocus(app, "#gm-actions button:not([disabled])");
  }, true);
}

export function renderTools(app, b) {
  setOptions($("#cond-combatant"), b.combatants.filter((c) => !c.out).map((c) => [c.id, c.name]));
  const known = [...new Set(["hp", ...b.combatants.flatMap((c) => Object.keys(c.resources))])];
  const hide = $("#add-hidden");
  if (hide && hide.dataset.keys !== known.join(",")) {
    const ticked = new Set(hiddenChosen());
    hide.dataset.keys = known.join(",");
    hide.innerHTML = String(html`${known.map((r) => html`<label class="check"><input type="checkbox" data-hide="${r}" ${ticked.has(r) ? "checked" : ""}> ${r}</label>`)}`);
  }
  renderOrder(app, b);
  renderDecision(app, b);
  const why = b.encounter.closed ? t("why_closed") : b.started ? t("why_started")
    : b.combatants.filter((c) => !c.out).length < 2 ? t("why_no_combatants") : "";
  const init = $("#btn-init");
  const start = $("#btn-start");
  init.disabled = Boolean(b.encounter.closed || b.started);
  start.disabled = Boolean(why);
  init.title = init.disabled ? why : "";
  start.title = start.disabled ? why : "";
  $("#turn-why").textContent = why ? `${t("roll_initiative")} / ${t("start_combat")}: ${why}` : "";
  renderDisputeCount(b);
  renderUndoHere(app, b);
  renderClosed(app, b);
  restoreFocus();
}
