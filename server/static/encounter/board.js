// The board every role sees: round and phase, initiative, combatants by side with their
// resource bars, the pending reaction, and the log with dice faces and audit buttons.
import { html, patch, $ } from "../lib/dom.js";
import { t, localized, lang } from "../i18n/index.js";
import { diceCharts } from "../lib/charts.js";

export function boardShell() {
  return html`
    <section class="card status" aria-labelledby="status-title">
      <h2 id="status-title" class="sr-only">${t("round")}</h2>
      <div id="status"></div>
      <div id="pending" aria-live="polite"></div>
      <div id="deadline"></div>
    </section>
    <section class="card" id="order-card" data-fold aria-labelledby="order-title">
      <h2 id="order-title">${t("order")}</h2>
      <div id="order"></div>
    </section>
    <section class="card sides-card" id="sides-card" aria-labelledby="sides-title">
      <h2 id="sides-title">${t("sides")}</h2>
      <div id="sides" class="sides"></div>
    </section>
    <section class="card log-card" id="log-card" data-fold aria-labelledby="log-title">
      <h2 id="log-title">${t("log")}</h2>
      <button type="button" id="log-earlier" class="ghost small">${t("earlier_lines")}</button>
      <ol id="log" class="log" aria-live="polite" aria-relevant="additions"></ol>
    </section>
    <section class="card dice-card" id="dice-card" data-fold aria-labelledby="dice-title">
      <h2 id="dice-title">${t("dice_title")}</h2>
      <div id="dice-stats"><p class="muted">${t("loading")}</p></div>
      <p class="muted small">${t("hidden_note")}</p>
    </section>`;
}

const name = (b, id) => (b.combatants.find((c) => c.id === id) || {}).name || id;

export function renderStatus(b) {
  const phase = b.phase_text ? html`<span><b>${t("phase")}</b> ${localized(b, "phase_text")}</span>` : "";
  const round = b.started ? html`<span><b>${localized(b, "round_label") || t("round")}</b> <span id="round">${b.round}</span></span>`
    : html`<span>${t("not_started")}</span>`;
  const actor = b.actor ? html`<span class="actor-now">▶ ${name(b, b.actor)}</span>` : "";
  const closed = b.encounter.closed ? html`<span class="badge closed">${t("closed")}</span>` : "";
  const winner = b.winner ? html`<span class="badge win">${t("winner")}: ${b.winner}</span>` : "";
  patch($("#status"), html`
    <h1 class="enc-name">${b.encounter.name} <small>${b.encounter.ruleset}</small></h1>
    <p class="meta">${round} ${phase} ${actor} ${closed} ${winner}
      <span class="ver">${t("version")} ${b.version}</span></p>
    ${roster(b)}`);
  patch($("#pending"), b.pending.map((p) => html`
    <p class="pending" data-pending="${p.id}"><b>${t("pending")}:</b> ${localized(p, "text")}</p>`));
  renderDeadline(b);
}

/** Every combatant's name and HP on one line each: on a phone (style.css shows it only
 * there) the fight reads at a glance above the turn, the cards with their tools below. */
function roster(b) {
  const rows = b.combatants.map((c) => {
    const key = Object.keys(c.resources).find((k) => (c.kinds || {})[k] === "hp");
    return html`<li class="${c.id === b.actor ? "current" : ""} ${c.out ? "is-out" : ""}" data-cid="${c.id}">
      <span class="fname">${c.name}</span>${key ? bar(c, key) : ""}</li>`;
  });
  return rows.length ? html`<ul class="roster" aria-label="${t("sides")}">${rows}</ul>` : "";
}

/** The current wait's deadline (`deadline.hours`): whose turn or defence, when it falls due
 * (the server's ISO time, shown in the page's language), what then happens. */
function renderDeadline(b) {
  const d = b.deadline;
  if (!d || b.encounter.closed) {
    patch($("#deadline"), "");
    return;
  }
  const when = d.due ? new Date(d.due) : null;
  const shown = when ? when.toLocaleString(lang() === "fr" ? "fr-FR" : "en-GB",
    { dateStyle: "medium", timeStyle: "short" }) : "?";
  const what = t(d.waiting === "defence" ? "deadline_defence" : "deadline_turn", { who: d.who_name });
  const state = d.passed ? t("deadline_passed") : d.reminded ? t("deadline_reminded") : "";
  patch($("#deadline"), html`
    <p class="deadline" data-due="${d.due || ""}"><b>${t("deadline")}</b> ${what}
      <time datetime="${d.due || ""}">${shown}</time>
      <span class="muted small">${t(`deadline_policy_${d.policy}`)}${state ? ` · ${state}` : ""}</span></p>`);
}

export function renderOrder(b) {
  if (!b.order.length) {
    patch($("#order"), html`<p class="muted">${t("no_order")}</p>`);
    return;
  }
  patch($("#order"), html`<ol class="order">${b.order.map((o) => html`
    <li class="${o.id === b.actor ? "current" : ""}" ${o.id === b.actor ? html`aria-current="true"` : ""}>
      <span class="who">${o.name}</span> <span class="score">${o.score ?? "–"}</span></li>`)}</ol>`);
}

function bar(c, key) {
  const v = c.resources[key];
  const max = c.maxima[key];
  const secret = c.hidden.includes(key);
  const label = (lang() === "fr" ? (c.labels_fr || {})[key] : (c.labels || {})[key]) || key;
  if (secret || v === null || v === undefined) {
    return html`<div class="res hidden-res" data-res="${key}"><span class="res-name">${label}</span>
      <span class="res-val">${t("hidden")}</span></div>`;
  }
  // No maximum known: a full bar; a maximum of 0 (0/0): an empty one.
  const pct = max ? Math.max(0, Math.min(100, Math.round((100 * v) / max))) : max === 0 ? 0 : 100;
  const kind = (c.kinds || {})[key] || "other";  // the server says what a resource is
  return html`<div class="res ${kind}" data-res="${key}">
    <span class="res-name">${label}</span>
    <span class="res-bar" role="meter" aria-label="${c.name} ${label}" aria-valuemin="0"
      aria-valuemax="${max ?? v}" aria-valuenow="${v}"><span style="width:${pct}%"></span></span>
    <span class="res-val">${v}${max !== null && max !== undefined ? html`<span class="max">/${max}</span>` : ""}</span>
  </div>`;
}

/** A condition as a chip: its name, the turn edges left, its modifier; the note on hover. */
function conditionChip(k) {
  const left = k.left === null || k.left === undefined ? t("cond_until_removed") : t("cond_left", { n: k.left });
  const mod = k.modifier ? ` ${k.modifier > 0 ? "+" : ""}${k.modifier}` : "";
  const tip = [k.note, k.until === "start_of_turn" ? t("cond_start") : t("cond_end"), k.rule].filter(Boolean).join(" · ");
  return html`<span class="chip cond" data-cond="${k.name}" data-left="${k.left ?? ""}" title="${tip}">${k.name}${mod}
    <span class="cond-left">${left}</span></span>`;
}

/** `extra(c)`: more HTML at the end of each card (the GM's tools). */
export function renderSides(b, extra = null) {
  if (!b.combatants.length) {
    patch($("#sides"), html`<p class="muted">${t("no_combatants")}</p>`);
    return;
  }
  patch($("#sides"), b.sides.map((side) => html`
    <div class="side">
      <h3>${side}</h3>
      <ul class="fighters">${b.combatants.filter((c) => c.side === side).map((c) => html`
        <li class="fighter ${c.id === b.actor ? "current" : ""} ${c.out ? "is-out" : ""}" data-cid="${c.id}">
          <div class="fighter-head"><b class="fname">${c.name}</b>
            ${c.out ? html`<span class="badge out">${t("out")}: ${localized(c, "out_text") || c.out}</span>` : ""}
            ${(c.chips || []).map((chip) => html`<span class="chip" data-chip="${chip.key}">${localized(chip, "label")}${chip.value === null ? "" : `: ${chip.value}`}</span>`)}
          </div>
          ${(c.conditions || []).length ? html`<div class="conds">${c.conditions.map(conditionChip)}</div>` : ""}
          ${Object.keys(c.resources).map((k) => bar(c, k))}
          ${extra ? extra(c) : ""}
        </li>`)}</ul>
    </div>`));
}

/** Log lines keyed by version and position within it: a resumed feed merges without duplicates. */
export class LogBook {
  constructor() { this.byVersion = new Map(); }

  merge(lines) {
    const grouped = new Map();
    for (const line of lines) {
      if (!grouped.has(line.version)) grouped.set(line.version, []);
      grouped.get(line.version).push(line);
    }
    for (const [v, ls] of grouped) this.byVersion.set(v, ls);
  }

  lines(upto = Infinity) {
    // An undo strikes lines already shown: the key changes so the log is redrawn.
    return [...this.byVersion.keys()].filter((v) => v <= upto).sort((a, b) => a - b)
      .flatMap((v) => this.byVersion.get(v).map((line, i) => ({ ...line, key: `${v}:${i}${line.undone != null ? ":u" : ""}` })));
  }
}

const HEADINGS = ["round_started", "turn_started"];

function lineHtml(line) {
  const text = html`${localized(line, "text")}`;
  if (HEADINGS.includes(line.kind)) {
    // Rounds and turns group the log; they are headings, not steps (no version, no dice).
    return `<li class="line heading ${line.kind}" data-key="${line.key}" data-version="${line.version}"><span class="text">${text}</span></li>`;
  }
  const faces = line.faces && line.faces.length
    ? html`<span class="faces" aria-label="${t("faces")}">${line.faces.map((f) => html`<span class="die">${f}</span>`)}</span>` : "";
  const rolls = line.roll ? [line.roll] : (line.rolls || []);
  const audit = rolls.map((n) => html`<button type="button" class="link audit-btn" data-roll="${n}"
      aria-label="${t("audit")} ${t("roll_n", { n })}">${t("roll_n", { n })}</button>`).join(" ");
  const rule = line.rule ? html`<a class="rule tag" href="/rules/${encodeURIComponent(line.rule)}" target="_blank" rel="noopener">${line.rule}</a>` : "";
  const struck = line.undone != null;
  const said = struck ? `<s>${text}</s> <span class="undone-why">(${html`${t("undone_step")}: ${line.undone}`})</span>` : text;
  const cls = ["line", line.kind, line.outcome ? `o-${line.outcome}` : "", line.hidden ? "secret" : "", struck ? "struck" : ""].join(" ");
  return `<li class="${cls}" data-key="${line.key}" data-version="${line.version}">`
    + `<span class="v">${line.version}</span> <span class="text">${said}</span> ${rule} ${faces}${audit}</li>`;
}

/** Strike the lines of versions an undo reverted (`undone`: [first, last] spans). */
function markUndone(ol, undone) {
  for (const li of ol.children) {
    const v = Number(li.dataset.version);
    const struck = undone.some(([a, z]) => v >= a && v <= z);
    li.classList.toggle("reverted", struck);
    if (struck) li.title = t("undone");
    else li.removeAttribute("title");
  }
}

/** Append new lines (the common case) or rebuild when the list is not an extension. */
export function renderLog(lines, undone = []) {
  const ol = $("#log");
  if (!ol) return;
  try {
    appendLog(ol, lines);
  } finally {
    markUndone(ol, undone || []);
  }
}

function appendLog(ol, lines) {
  const have = Array.from(ol.children).map((li) => li.dataset.key);
  const want = lines.map((l) => l.key);
  const extends_ = have.length <= want.length && have.every((k, i) => k === want[i]) && ol.dataset.lang === lang();
  if (!extends_) {
    ol.innerHTML = lines.map(lineHtml).join("");
    ol.dataset.lang = lang();
  } else if (want.length > have.length) {
    ol.insertAdjacentHTML("beforeend", lines.slice(have.length).map(lineHtml).join(""));
  } else {
    return;
  }
  const card = ol.parentElement;
  if (card) ol.scrollTop = ol.scrollHeight;
}

/** The dice fairness card (GET /api/encounters/{id}/dice for the caller's role). */
export function renderDice(stats) {
  patch($("#dice-stats"), diceCharts(stats));
}
