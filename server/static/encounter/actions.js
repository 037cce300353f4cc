// What a combatant may do on the board: the current actor's actions from `legal` (with
// their options and odds), the answers to a pending reaction, and a turn of two declared
// actions (the rule system says `turn: "two_declared"`). The GM console and the player's
// controls both draw them.
import { html, $, $$, say } from "../lib/dom.js";
import { t, localized } from "../i18n/index.js";

export const nameOf = (b, id) => (b.combatants.find((c) => c.id === id) || {}).name || id;

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

/** What the rule system calls option `k` in the page's language (the server words it). */
const optionLabel = (app, k) => localized((app.rules.option_labels || {})[k]) || k;

function choiceFields(app, entry) {
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
      return html`<label class="mini">${optionLabel(app, k)} <select data-choice="${k}" data-json>${blank}${vals.map((n) => html`<option value="${JSON.stringify(n)}">${n}</option>`)}</select></label>`;
    }
    return html`<label class="mini">${optionLabel(app, k)} (${vals}) <input type="number" min="0" data-choice="${k}" data-number></label>`;
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
      ${entry.enabled ? choiceFields(app, entry) : ""}
      ${oddsHtml(entry)}
      ${entry.rule ? html`<code class="rule">${entry.rule}</code>` : ""}
      ${why ? html`<span class="reason">${why}</span>` : ""}
    </li>`;
}

/** The answer the table waits for before the actor may go on (or end the turn), if any. */
export function awaited(b, cid) {
  return b.pending.find((p) => p.target !== cid) || null;
}

export function actionsHtml(app, b, cid) {
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
  app.redrawControls(); // the page's router knows which controls it shows
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

export function reactionsHtml(app, b, p, asGm) {
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
      ${entry && enabled ? choiceFields(app, entry) : ""}
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
export function bindCommands(app, root, msgEl) {
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
