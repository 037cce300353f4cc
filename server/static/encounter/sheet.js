// The player's own sheet: its stats and lists and the once-per-session uses left (GET
// /api/encounters/{id}/sheet, answered to this token only: the public board the player
// shares with spectators never carries a sheet), with its resources and their maxima and
// its statuses from the board.
import { api } from "../lib/api.js";
import { html, patch, $ } from "../lib/dom.js";
import { t, localized, lang } from "../i18n/index.js";

export function sheetShell() {
  return html`<section class="card" id="sheet-card" aria-labelledby="sheet-title">
    <h2 id="sheet-title">${t("sheet_title")}</h2><div id="my-sheet"></div></section>`;
}

// The sheets as last read, at the version the server answered; read again once the
// board is past it (one request at a time; a failed one waits for the next board).
let known = { at: -1, sheets: [] };
let asking = false;

function refresh(app) {
  if (asking || known.at >= app.board.version) return;
  asking = true;
  api.sheets(app.id, app.token).then((answer) => {
    asking = false;
    known = { at: answer.version, sheets: answer.sheets };
    app.redrawControls();
  }, () => { asking = false; });
}

const label = (c, key) => ((lang() === "fr" ? c.labels_fr : c.labels) || {})[key] || key;

function listName(key) {
  const said = t(`sheet_list_${key}`);
  return said === `sheet_list_${key}` ? key : said;
}

function resources(c) {
  return Object.keys(c.resources).map((k) => {
    const v = c.resources[k];
    const max = c.maxima[k];
    const shown = c.hidden.includes(k) || v === null || v === undefined
      ? html`<span class="muted">${t("hidden")}</span>`
      : html`${v}${max !== null && max !== undefined ? html`<span class="max">/${max}</span>` : ""}`;
    return html`<tr data-res="${k}"><th scope="row">${label(c, k)}</th><td>${shown}</td></tr>`;
  });
}

function uses(s) {
  if (!s.uses.length) return html`<p class="muted small" data-uses="none">${t("sheet_uses_none")}</p>`;
  return html`<ul class="sheet-uses">${s.uses.map((u) => html`
    <li data-use="${u.key}" data-left="${u.left}" class="${u.left ? "" : "spent"}">
      <span class="use-name">${localized(u)}</span>
      <span class="use-left">${u.left ? t("sheet_left", { left: u.left, limit: u.limit }) : t("sheet_spent")}</span>
      ${u.rule ? html`<code class="rule">${u.rule}</code>` : ""}</li>`)}</ul>`;
}

function sheetHtml(b, cid, s) {
  const c = b.combatants.find((x) => x.id === cid);
  if (!c) return "";
  const chips = (c.chips || []).map((chip) => html`<span class="chip" data-chip="${chip.key}">${localized(chip, "label")}${chip.value === null ? "" : `: ${chip.value}`}</span>`);
  let body = "";
  if (s && s.kept) body = html`<p class="muted" data-kept="">${t("sheet_kept")}</p>`;
  else if (s) {
    const stats = Object.entries(s.stats);
    body = html`
      ${stats.length ? html`<h4>${t("sheet_stats")}</h4><dl class="sheet-stats">${stats.map(([k, v]) => html`
        <div data-stat="${k}"><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>` : ""}
      ${Object.entries(s.lists).map(([k, names]) => html`<p class="sheet-list" data-list="${k}"><b>${listName(k)}</b> ${names.join(", ")}</p>`)}
      <h4>${t("sheet_uses")}</h4>${uses(s)}`;
  }
  return html`<div class="sheet" data-cid="${cid}"><h3>${c.name}${chips.length ? " " : ""}${chips}</h3>
    <h4>${t("sheet_resources")}</h4><table class="sheet-res">${resources(c)}</table>${body}</div>`;
}

/** The sheet of each of the player's combatants, from the board shown and the last read. */
export function renderSheet(app, b) {
  refresh(app);
  patch($("#my-sheet"), app.mine.map((cid) => sheetHtml(b, cid, known.sheets.find((s) => s.id === cid))));
}
