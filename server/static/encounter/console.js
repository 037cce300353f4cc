// The GM console and the player controls. Static forms are built once per page; the parts
// that follow the board (links, legal actions, pending reactions, disputes) are patched.
import { api } from "../lib/api.js";
import { html, patch, $, $$, setOptions, copyText, say } from "../lib/dom.js";
import { t, localized, outcome, lang } from "../i18n/index.js";
import { openAudit, proofBadge } from "./audit.js";
import { confirmClose } from "../lib/confirm.js";
import { warSaved, save } from "../lib/store.js";
import { webhookShell, bindWebhook } from "./webhook-card.js";
import {
  bindTools, renderTools, conditionsShell, turnExtras, hideShell, hiddenChosen, disputeItem,
} from "./gm-tools.js";

const nameOf = (b, id) => (b.combatants.find((c) => c.id === id) || {}).name || id;

// --- shared: actions and reactions --------------------------------------------------

// A half-rank switch (ranks-d100 RK-6..RK-8), as `legal` declares it: a box to tick while
// the RP's use is free, else what became of it. The box sends `options[option] = [stat]`.
const SWITCHES = ["activate", "deactivate"];

function switchField(entry) {
  const h = entry.half_rank;
  if (!h) return "";
  if (h.state !== "ready" || !(entry.choices || {})[h.option]) {
    return html`<span class="half-rank muted small" data-half-rank="${h.state}">${t(`half_${h.state}`, { stat: h.stat, rank: h.rank })}</span>`;
  }
  const known = entry.threshold !== undefined && entry.threshold !== null;
  const text = t(`half_${h.option}`, { stat: h.stat, rank: h.rank,
    to: known ? `${entry.threshold} → ${entry.threshold + h.delta}` : `+${h.delta}` });
  return html`<label class="mini half-rank" data-half-rank="ready"><input type="checkbox" data-switch="${h.option}"
    data-stat="${h.stat}" ${h.only_at ? html`data-only-at="${h.only_at}"` : ""}> ${text}</label>`;
}

/** A switch that applies at one rank letter only (RK-AMB-5 action ranks) follows the rank select. */
function syncSwitch(row) {
  const box = $("[data-switch][data-only-at]", row);
  const rank = $("[data-field=rank]", row);
  if (!box || !rank) return;
  box.disabled = rank.value !== box.dataset.onlyAt;
  if (box.disabled) box.checked = false;
}

function choiceFields(entry) {
  const ch = entry.choices;
  if (!ch) return switchField(entry);
  if (Array.isArray(ch)) {
    if (!ch.length) return "";
    return html`<label class="mini">${t("name")} <select data-choice="name">${ch.map((n) => html`<option>${n}</option>`)}</select></label>`;
  }
  return [...Object.entries(ch).filter(([k]) => !SWITCHES.includes(k)).map(([k, vals]) => {
    if (Array.isArray(vals)) {
      if (!vals.length) return "";
      const blank = k === "aim" ? html`<option value="">–</option>` : "";
      // Values keep their JSON type (numbers, booleans), as the rule system listed them.
      return html`<label class="mini">${k} <select data-choice="${k}" data-json>${blank}${vals.map((n) => html`<option value="${JSON.stringify(n)}">${n}</option>`)}</select></label>`;
    }
    return html`<label class="mini">${k} (${vals}) <input type="number" min="0" data-choice="${k}" data-number></label>`;
  }), switchField(entry)];
}

// What an action or reaction costs, in its system's own currency, and the odds of its
// roll, as `legal` lists them: "1 half-action (2 left) · 60% (ATT 12)".
function unitText(c) {
  return t(`unit_${c.unit}${c.amount === 1 ? "" : "_n"}`, { n: c.amount });
}

export function oddsText(entry) {
  const parts = (entry.cost || []).map((c) => (c.left === undefined || c.left === null
    ? unitText(c) : `${unitText(c)} ${t("left_after", { n: c.left })}`));
  if (entry.chance !== undefined && entry.chance !== null) {
    parts.push(entry.threshold !== undefined
      ? t("chance_of", { pct: entry.chance, stat: entry.stat, threshold: entry.threshold })
      : `${entry.chance}%`);
  }
  return parts.join(" · ");
}

const oddsHtml = (entry) => {
  const text = oddsText(entry);
  return text ? html`<span class="odds" data-odds="${entry.action}">${text}</span>` : "";
};

function actionRow(app, b, cid, entry, pick = "act") {
  const spec = app.rules.actions[entry.action] || {};
  const label = localized(spec) || entry.action;
  const targets = entry.targets || [];
  const ranks = entry.ranks || [];
  const why = entry.enabled ? "" : localized(entry, "reason");
  return html`
    <li class="action ${entry.enabled ? "" : "disabled"}" data-cid="${cid}" data-action="${entry.action}">
      <button type="button" data-${pick}="${entry.action}" ${entry.enabled ? "" : html`disabled aria-disabled="true"`}
        title="${why || entry.rule || ""}">${label}</button>
      ${targets.length ? html`<label class="mini">${t("target")} <select data-field="target">${targets.map((id) => html`<option value="${id}">${nameOf(b, id)}</option>`)}</select></label>` : ""}
      ${ranks.length ? html`<label class="mini">${t("rank")} <select data-field="rank">${ranks.map((r, i) => html`<option ${i === ranks.length - 1 ? "selected" : ""}>${r}</option>`)}</select></label>` : ""}
      ${entry.enabled ? choiceFields(entry) : ""}
      ${oddsHtml(entry)}
      ${entry.rule ? html`<code class="rule">${entry.rule}</code>` : ""}
      ${why ? html`<span class="reason">${why}</span>` : ""}
    </li>`;
}

/** The answer the table waits for before the actor may go on (or end the turn), if any. */
function awaited(b, cid) {
  return b.pending.find((p) => p.target !== cid) || null;
}

function actionsHtml(app, b, cid) {
  const entries = (b.legal[cid] || []).filter((e) => e.action in app.rules.actions && !e.reaction);
  const wait = awaited(b, cid);
  const why = wait ? t("wait_answer", { name: wait.target_name || nameOf(b, wait.target) }) : "";
  const end = b.started && b.actor === cid && !b.encounter.closed
    ? html`<li class="action"><button type="button" data-end="${cid}" ${wait ? html`disabled aria-disabled="true"` : ""}
        title="${why}">${t("end_turn")}</button>${why ? html`<span class="reason">${why}</span>` : ""}</li>` : "";
  if (app.rules.turn === "two_declared") return declareHtml(app, b, cid, entries, end);
  return html`<ul class="actions">${entries.map((e) => actionRow(app, b, cid, e))}${end}</ul>`;
}

// --- a turn of two declared actions (the rule system says `turn: "two_declared"`) -------
// Step 1 picks the first action, step 2 the second (or nothing), step 3 shows both and
// sends them as one `act` with `options.then` once confirmed. The draft lives here, per
// combatant and turn, so a board update in between keeps it.

const drafts = new Map();
const turnKey = (b, cid) => `${b.encounter.id}:${b.round}:${b.phase}:${cid}`;

function draftOf(b, cid) {
  const d = drafts.get(cid);
  if (d && d.key === turnKey(b, cid)) return d;
  const fresh = { key: turnKey(b, cid), first: null, second: undefined };
  drafts.set(cid, fresh);
  return fresh;
}

/** What one row declares: {action, target?, rank?, options, entry}. */
function readStep(row, entry) {
  const step = { action: entry.action, options: readOptions(row), entry };
  const target = $("[data-field=target]", row);
  const rank = $("[data-field=rank]", row);
  if (target) step.target = target.value;
  if (rank) step.rank = rank.value;
  return step;
}

function stepText(app, b, step) {
  if (!step) return t("nothing");
  const label = localized(app.rules.actions[step.action] || {}) || step.action;
  const to = step.target ? ` → ${nameOf(b, step.target)}` : "";
  const extra = oddsText(step.entry);
  return `${label}${to}${extra ? ` · ${extra}` : ""}`;
}

/** A second action's entry with what its costs leave counted after the first's. */
function afterFirst(entry, first) {
  const spent = {};
  for (const c of first.entry.cost || []) spent[c.unit] = (spent[c.unit] || 0) + c.amount;
  const cost = (entry.cost || []).map((c) => (c.left === undefined || c.left === null || !spent[c.unit]
    ? c : { ...c, left: c.left - spent[c.unit] }));
  return { ...entry, cost };
}

/** Actions left for the second step: the first's `action` cost says how many remain. */
function roomAfter(step) {
  const spent = (step.entry.cost || []).find((c) => c.unit === "action");
  return spent && spent.left !== undefined && spent.left !== null ? spent.left : 1;
}

function declareHtml(app, b, cid, entries, end) {
  const d = draftOf(b, cid);
  const declared = html`<li class="declared" data-step="first">${t("first_action")}: ${stepText(app, b, d.first)}
    <button type="button" class="secondary" data-redo="${cid}">${t("change")}</button></li>`;
  let body;
  if (!d.first) {
    body = html`<li class="step-head" data-step-head="1">${t("choose_first")}</li>${entries.map((e) => actionRow(app, b, cid, e, "first"))}`;
  } else if (d.second === undefined) {
    const room = roomAfter(d.first);
    const fits = entries.filter((e) => {
      const spent = (e.cost || []).find((c) => c.unit === "action");
      return !spent || spent.amount <= room;
    }).map((e) => afterFirst(e, d.first));
    body = html`${declared}<li class="step-head" data-step-head="2">${t("choose_second")}</li>
      ${fits.map((e) => actionRow(app, b, cid, e, "second"))}
      <li class="action"><button type="button" class="secondary" data-second="">${t("nothing")}</button></li>`;
  } else {
    body = html`${declared}
      <li class="declared" data-step="second">${t("second_action")}: ${stepText(app, b, d.second)}</li>
      <li class="action"><button type="button" data-declare="${cid}">${t("declare_turn")}</button>
        <code class="rule">TC-7</code></li>`;
  }
  return html`<ul class="actions two-declared" data-cid="${cid}">${body}${end}</ul>`;
}

function rerender(app) {
  const b = app.shown();
  if (!b) return;
  if (app.role === "gm") renderGm(app, b);
  else if (app.role === "player") renderPlayer(app, b);
}

/** A click in the two-step declaration; true if it was one. */
function declareClick(app, btn) {
  const list = btn.closest("ul.two-declared");
  if (!list) return false;
  const cid = list.dataset.cid;
  const b = app.shown();
  const d = draftOf(b, cid);
  const row = btn.closest("[data-action]");
  const entry = row && (b.legal[cid] || []).find((e) => e.action === row.dataset.action && !e.reaction);
  if (btn.dataset.first !== undefined && entry) {
    d.first = readStep(row, entry);
    d.second = roomAfter(d.first) > 0 ? undefined : null;
  } else if (btn.dataset.second !== undefined) {
    d.second = entry ? readStep(row, afterFirst(entry, d.first)) : null;
  } else if (btn.dataset.redo !== undefined) {
    d.first = null;
    d.second = undefined;
  } else {
    return false;
  }
  rerender(app);
  return true;
}

function declareBody(app, cid) {
  const d = draftOf(app.shown(), cid);
  const first = d.first;
  const body = { type: "act", actor: cid, action: first.action };
  if (first.target) body.target = first.target;
  if (first.rank) body.rank = first.rank;
  const options = { ...first.options };
  if (d.second) {
    const then = { action: d.second.action };
    if (d.second.target) then.target = d.second.target;
    if (Object.keys(d.second.options).length) then.options = d.second.options;
    options.then = then;
  }
  if (Object.keys(options).length) body.options = options;
  return body;
}

function reactionsHtml(app, b, p, asGm) {
  const legal = b.legal[p.target] || [];
  const buttons = p.options.map((opt) => {
    const spec = app.rules.reactions[opt];
    const label = opt === "none" ? t("no_defense") : localized(spec) || opt;
    const entry = legal.find((e) => e.action === opt && (e.reaction || !(opt in app.rules.actions)));
    const enabled = !entry || entry.enabled;
    // Each reaction with its own choices (a counter's attack and rank, RK-61/62).
    return html`<span class="reaction" data-reaction="${opt}"><button type="button" data-react="${opt}" data-cid="${p.target}"
      class="${opt === "none" ? "secondary" : ""}" ${enabled ? "" : "disabled"}
      title="${entry && !enabled ? localized(entry, "reason") : (spec && spec.rule) || ""}">${label}</button>
      ${entry && enabled ? choiceFields(entry) : ""}
      ${entry ? oddsHtml(entry) : ""}
      ${entry && !enabled ? html`<span class="reason">${localized(entry, "reason")}</span>` : ""}</span>`;
  });
  return html`
    <div class="react" data-pending="${p.id}" data-cid="${p.target}">
      <p>${localized(p, "text")}</p>
      ${asGm ? html`<p class="muted small">${t("answer_for", { name: p.target_name })}</p>` : ""}
      <div class="buttons">${buttons}</div>
      <details class="opts"><summary>${t("options_json")}</summary>
        <input type="text" data-options placeholder="{}" aria-label="${t("options_json")}"></details>
    </div>`;
}

function readOptions(scope) {
  const out = {};
  for (const el of $$("[data-switch]", scope)) {
    if (el.checked && !el.disabled) out[el.dataset.switch] = [el.dataset.stat];
  }
  for (const el of $$("[data-choice]", scope)) {
    if (el.value === "") continue;
    if (el.dataset.json !== undefined) out[el.dataset.choice] = JSON.parse(el.value);
    else out[el.dataset.choice] = el.dataset.number !== undefined ? Number(el.value) : el.value;
  }
  return out;
}

/** Clicks on act / react / end-turn buttons anywhere inside `root`. */
function bindCommands(app, root, msgEl) {
  root.addEventListener("change", (e) => {
    if (e.target.matches("[data-field=rank]")) syncSwitch(e.target.closest("[data-action]"));
  });
  root.addEventListener("click", async (e) => {
    const btn = e.target.closest("button");
    if (!btn || btn.disabled) return;
    if (declareClick(app, btn)) return;
    let body = null;
    if (btn.dataset.declare) {
      body = declareBody(app, btn.dataset.declare);
    } else if (btn.dataset.act) {
      const row = btn.closest("[data-action]");
      body = { type: "act", actor: row.dataset.cid, action: btn.dataset.act };
      const target = $("[data-field=target]", row);
      const rank = $("[data-field=rank]", row);
      if (target) body.target = target.value;
      if (rank) body.rank = rank.value;
      const options = readOptions(row);
      if (Object.keys(options).length) body.options = options;
    } else if (btn.dataset.react) {
      const box = btn.closest(".react");
      body = { type: "react", actor: btn.dataset.cid, reaction: btn.dataset.react };
      const options = readOptions(btn.closest("[data-reaction]") || box);
      const raw = $("[data-options]", box);
      if (raw && raw.value.trim()) {
        try { Object.assign(options, JSON.parse(raw.value)); } catch (err) {
          say(msgEl, err.message, true);
          return;
        }
      }
      if (Object.keys(options).length) body.options = options;
    } else if (btn.dataset.end) {
      body = { type: "end_turn", actor: btn.dataset.end };
    }
    // A declared turn's draft goes once the server took it; a refusal keeps it to change.
    if (body && (await app.send(body, msgEl)) && btn.dataset.declare) drafts.delete(btn.dataset.declare);
  });
}

// --- player ---------------------------------------------------------------------------

export function playerShell() {
  return html`
    <section class="card" aria-labelledby="mine-title">
      <h2 id="mine-title">${t("your_controls")}</h2>
      <div id="mine"></div>
      <p id="player-msg" class="form-msg" role="status"></p>
    </section>
    <section class="card" aria-labelledby="pdice-title">
      <h2 id="pdice-title">${t("dice_card")}</h2>
      <form id="entropy-form" class="entropy" hidden>
        <h3>${t("entropy_title")} <code class="rule">add_entropy</code></h3>
        <p class="muted small">${t("entropy_hint")}</p>
        <div class="row-form">
          <label>${t("entropy_value")} <input name="value" id="entropy-value" required maxlength="256" spellcheck="false"></label>
          <button type="submit" id="entropy-btn">${t("add_entropy")}</button>
        </div>
        <span id="entropy-msg" class="form-msg" role="status"></span>
      </form>
      <form id="proll-form" class="grid-form">
        <label>${t("expr")} <input name="expr" id="proll-expr" required value="1d20" maxlength="40"></label>
        <label>${t("purpose")} <input name="purpose" id="proll-purpose" maxlength="2000"></label>
        <div class="wide"><button type="submit">${t("roll")}</button><span id="proll-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>`;
}

function randomHex() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function bindPlayer(app) {
  bindCommands(app, $("#mine"), $("#player-msg"));
  $("#entropy-value").value = randomHex();
  $("#entropy-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await app.send({ type: "add_entropy", value: $("#entropy-value").value.trim() }, $("#entropy-msg"));
    if (answer) {
      say($("#entropy-msg"), t("entropy_added"));
      $("#entropy-value").value = randomHex();
    }
  });
  $("#proll-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    await app.send({ type: "roll", expr: f.expr.value.trim(), purpose: f.purpose.value }, $("#proll-msg"));
  });
}

export function renderPlayer(app, b) {
  const closed = b.encounter.closed;
  // After close nothing is played: the forms go off and the page says so (a dispute of a
  // roll stays open to everyone, CONTRACT section 4).
  $$("#proll-form input, #proll-form select, #proll-form button").forEach((el) => { el.disabled = closed; });
  patch($("#mine"), app.mine.map((cid) => {
    const c = b.combatants.find((x) => x.id === cid);
    if (!c) return "";
    if (closed) {
      return html`<div class="mine" data-cid="${cid}" data-closed=""><h3>${c.name}</h3>
        <p class="muted">${t("player_closed")}</p></div>`;
    }
    const pending = b.pending.filter((p) => p.target === cid);
    const turn = b.started && b.actor === cid && !b.encounter.closed;
    // The actor's attack waits on someone else's defence: not a turn to play yet.
    const wait = turn && !pending.length ? awaited(b, cid) : null;
    let body;
    if (pending.length) body = pending.map((p) => reactionsHtml(app, b, p, false));
    else if (wait) {
      const name = wait.target_name || nameOf(b, wait.target);
      body = html`<p class="muted" data-waiting="${wait.target}">${t("wait_answer", { name })}</p>
        <ul class="actions"><li class="action"><button type="button" data-end="${cid}" disabled aria-disabled="true">${t("end_turn")}</button></li></ul>`;
    } else if (turn) body = actionsHtml(app, b, cid);
    else body = html`<p class="muted">${t("wait", { name: c.name })}</p>`;
    const head = pending.length ? t("defend", { name: c.name })
      : wait ? t("turn_waiting", { name: c.name }) : turn ? t("your_turn", { name: c.name }) : c.name;
    return html`<div class="mine ${(turn && !wait) || pending.length ? "hot" : ""}" data-cid="${cid}"><h3>${head}</h3>${body}</div>`;
  }));
  // Entropy counts only before the first roll (CONTRACT section 6).
  const entropy = $("#entropy-form");
  if (entropy) entropy.hidden = b.dice.rolls > 0 || b.encounter.closed;
}

// --- GM console -----------------------------------------------------------------------

export function gmShell(app) {
  const presets = Object.keys(app.rules.presets);
  return html`
    <section class="card" aria-labelledby="share-title">
      <h2 id="share-title">${t("share")}</h2>
      <div id="war-back"></div>
      <div id="share"></div>
      <p id="share-msg" class="form-msg" role="status"></p>
    </section>
    <section class="card turn-card" id="turn-card" tabindex="-1" aria-labelledby="turn-title">
      <h2 id="turn-title">${t("turn")}</h2>
      <div class="buttons">
        <button type="button" id="btn-init">${t("roll_initiative")}</button>
        <button type="button" id="btn-start">${t("start_combat")}</button>
      </div>
      <label class="field">${t("dice")} <input id="dice-input" type="text" inputmode="numeric"
        autocomplete="off" placeholder="dice: 12 7" aria-describedby="dice-hint"></label>
      <small id="dice-hint" class="muted">${t("dice_hint")}</small>
      ${turnExtras()}
      <div id="gm-actions"></div>
      <h3>${t("reactions")}</h3>
      <div id="gm-pending"></div>
      <p id="gm-msg" class="form-msg" role="status"></p>
    </section>
    ${conditionsShell()}
    <section class="card" aria-labelledby="add-title">
      <h2 id="add-title">${t("add_combatant")}</h2>
      <form id="add-form" class="grid-form" novalidate>
        <label>${t("name")} <input name="name" id="add-name" required maxlength="80"></label>
        <label>${t("side")} <input name="side" id="add-side" required maxlength="80" list="side-list" value="heroes"></label>
        <datalist id="side-list"></datalist>
        <label>${t("preset")} <select name="preset" id="add-preset">
          ${presets.map((p) => html`<option value="${p}">${p}</option>`)}
          <option value="">${t("custom_sheet")}</option></select></label>
        <label>${t("controller")} <input name="controller" id="add-controller" maxlength="80"></label>
        <label>${t("add_copies")} <input name="copies" id="add-copies" type="number" min="1" max="20" value="1" inputmode="numeric"></label>
        <label class="wide" id="sheet-label" hidden>${t("sheet")}
          <textarea name="sheet" id="add-sheet" rows="6" spellcheck="false" aria-describedby="sheet-error"></textarea>
          <span id="sheet-error" class="field-error" role="alert"></span></label>
        ${hideShell()}
        <div class="wide"><button type="submit">${t("add")}</button>
          <span id="add-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>
    <section class="card" aria-labelledby="adjust-title">
      <h2 id="adjust-title">${t("adjust")}</h2>
      <form id="adjust-form" class="grid-form" novalidate>
        <label>${t("combatant")} <select name="combatant" id="adj-combatant"></select></label>
        <label>${t("resource")} <select name="resource" id="adj-resource"></select></label>
        <label>${t("delta")} <input name="delta" id="adj-delta" type="number" required value="-1"></label>
        <label>${t("reason")} <input name="reason" id="adj-reason" required maxlength="2000"></label>
        <div class="wide"><button type="submit">${t("apply")}</button><span id="adjust-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>
    <section class="card" aria-labelledby="roll-title">
      <h2 id="roll-title">${t("free_roll")}</h2>
      <form id="roll-form" class="grid-form">
        <label>${t("expr")} <input name="expr" id="roll-expr" required value="1d20" maxlength="40"></label>
        <label>${t("purpose")} <input name="purpose" id="roll-purpose" maxlength="2000"></label>
        <label class="check"><input type="checkbox" name="hidden" id="roll-hidden"> ${t("hidden_roll")}</label>
        <div class="wide"><button type="submit">${t("roll")}</button><span id="roll-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>
    <section class="card" aria-labelledby="disputes-title">
      <h2 id="disputes-title">${t("disputes")}</h2>
      <div id="gm-disputes"></div>
      <p id="disputes-msg" class="form-msg" role="status"></p>
    </section>
    <section class="card" aria-labelledby="export-title">
      <h2 id="export-title">${t("export")}</h2>
      <div class="buttons">
        <button type="button" data-export="bbcode" data-scope="last">${t("copy_last_bb")}</button>
        <button type="button" data-export="markdown" data-scope="last">${t("copy_last_md")}</button>
        <button type="button" data-export="bbcode" data-scope="all" class="secondary">${t("copy_all_bb")}</button>
        <button type="button" data-export="markdown" data-scope="all" class="secondary">${t("copy_all_md")}</button>
      </div>
      <label class="check"><input type="checkbox" id="export-hidden"> ${t("include_hidden")}</label>
      <textarea id="export-out" rows="5" readonly aria-label="${t("export")}" hidden></textarea>
      <span id="export-msg" class="form-msg" role="status"></span>
    </section>
    ${webhookShell()}
    <section class="card danger-zone" aria-labelledby="undo-title">
      <h2 id="undo-title">${t("undo_close")}</h2>
      <form id="undo-form" class="row-form">
        <label>${t("reason")} <input name="reason" id="undo-reason" required maxlength="2000"></label>
        <button type="submit" class="secondary">${t("undo")}</button>
      </form>
      <div class="buttons"><button type="button" id="btn-close" class="danger">${t("close_reveal")}</button></div>
      <p id="undo-msg" class="form-msg" role="status"></p>
    </section>
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">${t("keys_title")}</h2>
      <dl id="gm-keys" class="keys">
        <dt><kbd>a</kbd></dt><dd>${t("key_actions")}</dd>
        <dt><kbd>e</kbd></dt><dd>${t("key_end_turn")}</dd>
        <dt><kbd>u</kbd></dt><dd>${t("key_undo")}</dd>
      </dl>
    </section>`;
}

// Keyboard shortcuts for the frequent steps, listed on the page (#gm-keys). Never while
// typing, never with a modifier, never behind a dialog; each does what its button does.
function bindKeys() {
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const typing = e.target.closest && e.target.closest("input, textarea, select, [contenteditable]");
    if (typing || document.querySelector("dialog[open]") || !$("#audit").hidden) return;
    const enabled = (sel) => [...document.querySelectorAll(sel)].find((b) => !b.disabled);
    let done = false;
    if (e.key === "a") {
      const first = enabled("#gm-actions li.action button:not([data-end]), #gm-pending button");
      if (first) { first.focus(); done = true; }
    } else if (e.key === "e") {
      const end = enabled("#gm-actions button[data-end]");
      if (end) { end.click(); done = true; }
    } else if (e.key === "u") {
      $("#undo-reason").focus();
      done = true;
    }
    if (done) e.preventDefault();
  });
}

function presetSheet(app) {
  const p = $("#add-preset").value;
  return p ? app.rules.presets[p] : null;
}

export function bindGm(app) {
  bindKeys();
  const gmMsg = $("#gm-msg");
  bindCommands(app, $("#gm-actions"), gmMsg);
  bindCommands(app, $("#gm-pending"), gmMsg);
  $("#btn-init").addEventListener("click", () => app.send({ type: "roll_initiative" }, gmMsg));
  $("#btn-start").addEventListener("click", () => app.send({ type: "start_combat" }, gmMsg));
  $("#btn-close").addEventListener("click", async () => {
    if (await confirmClose()) await app.send({ type: "close", reason: "" }, $("#undo-msg"));
  });

  const preset = $("#add-preset");
  const syncSheet = () => {
    const custom = preset.value === "";
    $("#sheet-label").hidden = !custom;
    const first = Object.values(app.rules.presets)[0] || {};
    if (custom && !$("#add-sheet").value) $("#add-sheet").value = JSON.stringify(first, null, 1);
    if (!$("#add-name").value || $("#add-name").dataset.auto) {
      $("#add-name").value = preset.value ? preset.value[0].toUpperCase() + preset.value.slice(1) : "";
      $("#add-name").dataset.auto = "1";
    }
  };
  $("#add-name").addEventListener("input", (e) => { delete e.target.dataset.auto; });
  preset.addEventListener("change", syncSheet);
  syncSheet();

  $("#add-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    const sheetErr = $("#sheet-error");
    sheetErr.textContent = "";
    $("#add-sheet").removeAttribute("aria-invalid");
    const body = { type: "add_combatant", name: f.name.value.trim(), side: f.side.value.trim() };
    if (f.controller.value.trim()) body.controller = f.controller.value.trim();
    const hidden = hiddenChosen();
    if (hidden.length) body.hidden = hidden;
    if (f.preset.value) body.preset = f.preset.value;
    else {
      try { body.sheet = JSON.parse(f.sheet.value || "{}"); } catch (err) {
        sheetErr.textContent = err.message;
        $("#add-sheet").setAttribute("aria-invalid", "true");
        return;
      }
    }
    // N copies ("Goblin 1".."Goblin 3"), one command each, stopping at the first refusal.
    const copies = Number(f.copies.value || 1);
    if (!Number.isInteger(copies) || copies < 1 || copies > 20) {
      say($("#add-msg"), t("add_copies_range"), true);
      f.copies.setAttribute("aria-invalid", "true");
      f.copies.focus();
      return;
    }
    f.copies.removeAttribute("aria-invalid");
    const base = body.name;
    let answer = null;
    for (let n = 1; n <= copies; n += 1) {
      const one = copies > 1 ? { ...body, name: `${base} ${n}`.slice(0, 80) } : body;
      answer = await app.send(one, $("#add-msg"), (err) => {
        if (!f.preset.value) {
          sheetErr.textContent = err.message;
          $("#add-sheet").setAttribute("aria-invalid", "true");
          return true;
        }
        return false;
      });
      if (!answer) break;
      if (answer.player_token) app.rememberPlayer(answer.combatant_id, one.name, answer.player_token);
    }
    if (answer && answer.player_token) {
      f.name.value = "";
      delete f.name.dataset.auto;
      f.name.focus();
    }
    if (answer) f.copies.value = "1";
  });

  $("#adj-combatant").addEventListener("change", () => renderAdjust(app, app.shown()));
  $("#adjust-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    if (f.delta.value.trim() === "" || !Number.isInteger(Number(f.delta.value))) {
      say($("#adjust-msg"), t("change_empty"), true);
      f.delta.setAttribute("aria-invalid", "true");
      f.delta.focus();
      return;
    }
    f.delta.removeAttribute("aria-invalid");
    await app.send({ type: "adjust", combatant: f.combatant.value, resource: f.resource.value,
      delta: Number(f.delta.value), reason: f.reason.value || "GM" }, $("#adjust-msg"));
  });
  $("#roll-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    await app.send({ type: "roll", expr: f.expr.value.trim(), purpose: f.purpose.value,
      hidden: f.hidden.checked }, $("#roll-msg"));
  });
  $("#undo-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    await app.send({ type: "undo", reason: e.target.reason.value || "GM" }, $("#undo-msg"));
  });
  $("#share").addEventListener("click", async (e) => {
    const action = e.target.closest("button[data-link-copy], button[data-link-new], button[data-link-revoke]");
    if (action) {
      await onShareClick(app, action);
      return;
    }
    const btn = e.target.closest("button[data-copy]");
    if (!btn) return;
    const input = document.getElementById(btn.dataset.copy);
    input.select();
    const ok = await copyText(input.value);
    btn.textContent = ok ? t("copied") : t("copy");
    setTimeout(() => { btn.textContent = t("copy"); }, 1500);
  });
  $("#gm-disputes").addEventListener("click", (e) => {
    const btn = e.target.closest("button[data-roll]");
    if (btn) openAudit(Number(btn.dataset.roll), btn);
  });
  for (const btn of $$("button[data-export]")) {
    btn.addEventListener("click", () => doExport(app, btn.dataset.export, btn.dataset.scope));
  }
  bindTools(app);
  bindWebhook(app);
}

async function doExport(app, format, scope) {
  const out = $("#export-out");
  const msg = $("#export-msg");
  let text;
  try {
    // The server words every export (the last turn too), in the page's language; hidden
    // rolls and GM-only resources only when the GM ticks the box.
    const hidden = $("#export-hidden") && $("#export-hidden").checked;
    text = await api.exportText(app.id, app.token, format, {
      scope: scope === "last" ? "last_turn" : "all", lang: lang(), include_hidden: hidden,
    });
  } catch (err) {
    say(msg, err.message, true);
    return;
  }
  out.hidden = false;
  out.value = text;
  const ok = await copyText(text);
  say(msg, ok ? t("copied") : "");
}

function linkRow(id, label, url) {
  return html`<div class="link-row"><label for="${id}">${label}</label>
    <div class="copy-line"><input id="${id}" type="text" readonly value="${url}">
    <button type="button" data-copy="${id}">${t("copy")}</button></div></div>`;
}

const playerUrl = (app, cid, token) => `${location.origin}/e/${app.id}#token=${token}&as=${cid}`;

/** The encounter's live links (GET .../tokens), fetched again when the cast changes. */
async function loadTokens(app) {
  try {
    app.tokens = (await api.tokens(app.id, app.token)).tokens;
  } catch {
    app.tokens = app.tokens || null;
  }
  if (app.board) renderShare(app, app.shown());
}

function playerRow(app, c, live) {
  const p = app.saved.players[c.id];
  const used = live.map((x) => x.last_used).filter(Boolean).sort().pop();
  const count = app.tokens ? (live.length ? t("links_n", { n: live.length }) : t("no_link")) : "";
  return html`<li data-cid="${c.id}"><strong>${c.name}</strong>
    <small class="muted" data-links="${live.length}">${count}${used ? ` · ${t("last_used", { when: new Date(used).toLocaleString() })}` : ""}</small>
    ${p ? html`<div class="copy-line"><label for="link-player-${c.id}" class="sr-only">${t("player_link", { name: c.name })}</label>
      <input id="link-player-${c.id}" type="text" readonly value="${playerUrl(app, c.id, p.token)}"></div>` : ""}
    <div class="buttons">
      <button type="button" data-link-copy="${c.id}">${t("copy_link")}</button>
      <button type="button" data-link-new="${c.id}" class="secondary">${t("new_link")}</button>
      <button type="button" data-link-revoke="${c.id}" class="danger" ${live.length ? "" : "disabled"}>${t("revoke")}</button>
    </div></li>`;
}

/** Copy / new link / revoke, per combatant (one handler on the share card). */
async function onShareClick(app, btn) {
  const msg = $("#share-msg");
  const cid = btn.dataset.linkCopy || btn.dataset.linkNew || btn.dataset.linkRevoke;
  const name = nameOf(app.board, cid);
  try {
    if (btn.dataset.linkRevoke) {
      const live = (app.tokens || []).filter((x) => x.role === "player" && x.combatants.includes(cid));
      for (const x of live) await api.revokeToken(app.id, app.token, x.id);
      const players = { ...app.saved.players };
      delete players[cid];
      app.saved = save(app.id, { players });
      say(msg, t("links_revoked", { name }));
    } else {
      let p = btn.dataset.linkCopy ? app.saved.players[cid] : null;
      if (p) {
        // A link this browser keeps may have been revoked from another device.
        try { await api.me(app.id, p.token); } catch (err) { if (err.status === 401) p = null; else throw err; }
      }
      if (!p) {
        const made = await api.issueToken(app.id, app.token, { role: "player", combatants: [cid] });
        p = { name, token: made.token, id: made.id };
        app.saved = save(app.id, { players: { ...app.saved.players, [cid]: p } });
        say(msg, t("link_made"));
      } else {
        say(msg, t("link_copied"));
      }
      await copyText(playerUrl(app, cid, p.token));
    }
  } catch (err) {
    say(msg, err.message, true);
  }
  await loadTokens(app);
}

function renderShare(app, b) {
  const origin = location.origin;
  const rows = [linkRow("link-gm", t("gm_link"), `${origin}/e/${app.id}#token=${app.token}&role=gm`)];
  if (app.saved.spectator) {
    rows.push(linkRow("link-spectator", t("spectator_link"), `${origin}/e/${app.id}#token=${app.saved.spectator}&role=spectator`));
  }
  const cast = b.combatants.map((c) => c.id).join(",");
  if (app.tokensCast !== cast) { // someone (maybe another client) added or removed a combatant
    app.tokensCast = cast;
    loadTokens(app);
  }
  const live = (cid) => (app.tokens || []).filter((x) => x.role === "player" && x.combatants.includes(cid));
  rows.push(html`<h3>${t("player_links")}</h3><ul class="player-links">${b.combatants.map((c) => playerRow(app, c, live(c.id)))}</ul>`);
  patch($("#share"), rows);
  // An encounter of a War: back to the War's page, if this browser holds its GM token.
  const war = b.encounter.campaign ? warSaved(b.encounter.campaign) : {};
  patch($("#war-back"), war.gm ? html`<p class="war-back"><a id="war-link" href="/w/${b.encounter.campaign}">${
    t("back_to_war", { name: war.name || t("war") })}</a></p>` : "");
}

function renderAdjust(app, b) {
  setOptions($("#adj-combatant"), b.combatants.map((c) => [c.id, `${c.name} (${c.id})`]));
  const c = b.combatants.find((x) => x.id === $("#adj-combatant").value);
  const label = (k) => ((lang() === "fr" ? c.labels_fr : c.labels) || {})[k] || k;
  setOptions($("#adj-resource"), c ? Object.keys(c.resources).map((k) => [k, label(k)]) : []);
}

// Roll audits of the disputed rolls, by "roll:stamp" (a reveal or a new dispute changes
// the stamp and makes them stale). Bounded: entries of an older stamp are dropped at each
// render, and at most AUDITS (or one per dispute on the board) are kept, least recent first.
const AUDITS = 256;
const audits = new Map();

function remember(key, value, cap) {
  audits.delete(key);
  audits.set(key, value);
  while (audits.size > cap) audits.delete(audits.keys().next().value);
}

function renderDisputes(app, b) {
  if (!b.disputes.length) {
    audits.clear();
    patch($("#gm-disputes"), html`<p class="muted">${t("no_disputes")}</p>`);
    return;
  }
  const stamp = `${b.dice.revealed.length}:${b.disputes.length}:${b.disputes.filter((d) => d.answer).length}`;
  const cap = Math.max(AUDITS, b.disputes.length);
  for (const k of [...audits.keys()]) if (!k.endsWith(`:${stamp}`)) audits.delete(k);
  for (const d of b.disputes) {
    const key = `${d.roll}:${stamp}`;
    if (!audits.has(key)) {
      remember(key, null, cap);
      api.roll(app.id, app.token, d.roll).then((a) => {
        if (!audits.has(key)) return; // stale by now
        remember(key, a, cap);
        renderDisputes(app, app.shown());
      }).catch(() => audits.delete(key));
    }
  }
  patch($("#gm-disputes"), html`<ul class="disputes">${b.disputes.map((d) => {
    const a = audits.get(`${d.roll}:${stamp}`);
    return disputeItem(d, a, a ? html`<span class="dispute-detail">${a.actor_name}: <code>${a.expr}</code> ${a.faces.map((f) => html`<span class="die">${f}</span>`)}
        ${a.check ? html` ${outcome(a.check.outcome)}` : ""} ${proofBadge(a.proof)}</span>` : "");
  })}</ul>`);
}

export function renderGm(app, b) {
  renderShare(app, b);
  setOptions($("#side-list"), b.sides.map((s) => [s, s]));
  const actor = b.actor && b.started && !b.encounter.closed ? b.actor : null;
  patch($("#gm-actions"), actor
    ? html`<h3>${t("actions_of", { name: nameOf(b, actor) })}</h3>${actionsHtml(app, b, actor)}`
    : html`<p class="muted">${t("no_actor")}</p>`);
  patch($("#gm-pending"), b.pending.length
    ? b.pending.map((p) => reactionsHtml(app, b, p, true))
    : html`<p class="muted">${t("none_pending")}</p>`);
  $("#btn-close").disabled = b.encounter.closed;
  renderAdjust(app, b);
  renderDisputes(app, b);
  renderTools(app, b);
}
