// The GM console's quick setup: "Duplicate" and "Save to library" on each combatant's
// card, the library of sheets on the add form (this browser's, per rule system; in a
// War the War's characters are the library), and the players' entropy window before the
// first roll. Every addition is one plain add_combatant with the sheet the GM's board
// gives (its `sheet` and `gm_only`): the copy starts at the sheet's maxima.
import { html, patch, $, say } from "../lib/dom.js";
import { t } from "../i18n/index.js";
import { library, libraryKeep, libraryRename, libraryDelete } from "../lib/store.js";

const NAME_MAX = 80;

/** The next free name after `name` among the board's: "Goblin" -> "Goblin 2" (or 3...);
 * a name that ends in a number counts on from its stem ("Goblin 2" -> "Goblin 3"). */
export function nextName(b, name) {
  const m = name.match(/^(.*\S)\s+(\d+)$/);
  const stem = m ? m[1] : name;
  const taken = new Set(b.combatants.map((c) => c.name));
  for (let n = 2; ; n += 1) {
    const tail = ` ${n}`;
    const candidate = stem.slice(0, NAME_MAX - tail.length) + tail;
    if (!taken.has(candidate)) return candidate;
  }
}

function freeName(b, name) {
  return b.combatants.some((c) => c.name === name) ? nextName(b, name) : name;
}

/** One add_combatant with a kept sheet: no controller, the sheet's own maxima. */
async function addSheet(app, msg, { name, side, sheet, hidden }) {
  const body = { type: "add_combatant", name, side, sheet };
  if (hidden && hidden.length) body.hidden = hidden;
  const answer = await app.send(body, msg);
  if (answer && answer.player_token) app.rememberPlayer(answer.combatant_id, name, answer.player_token);
  if (answer) say(msg, t("duplicated", { name }));
  return answer;
}

// --- on each card ---------------------------------------------------------------------

/** The card's Duplicate and Save to library buttons, off when the card's tools are
 * (closed, or a past version shown). */
export function setupButtons(c, dis) {
  return html`<button type="button" class="ghost duplicate" data-duplicate="${c.id}" ${dis}
      aria-label="${t("duplicate_label", { name: c.name })}">${t("duplicate")}</button>
    <button type="button" class="ghost keep" data-keep="${c.id}" ${dis}
      aria-label="${t("keep_label", { name: c.name })}">${t("keep_in_library")}</button>`;
}

/** A click on one of those buttons (gm-tools.js's card handler passes it on). */
export async function onSetupCard(app, btn, cid, msg) {
  const b = app.board;
  const c = b.combatants.find((x) => x.id === cid);
  if (!c) return;
  if (btn.dataset.duplicate) {
    await addSheet(app, msg, { name: nextName(b, c.name), side: c.side, sheet: c.sheet, hidden: c.gm_only });
  } else if (btn.dataset.keep) {
    const kept = libraryKeep({ name: c.name, ruleset: b.encounter.ruleset, side: c.side, sheet: c.sheet,
      hidden: c.gm_only, maxima: c.maxima });
    say(msg, t("kept", { name: kept.name }));
    renderLibrary(app, app.shown());
  }
}

// --- the library, on the add form -------------------------------------------------------

let renaming = null; // the entry whose name is being edited

export function libraryShell() {
  return html`<div class="library" id="library-box" aria-labelledby="library-title">
    <h3 id="library-title">${t("library")}</h3>
    <div id="library-war"></div>
    <div id="library"></div>
    <p id="library-msg" class="form-msg" role="status"></p></div>`;
}

function summary(e) {
  const res = Object.entries(e.maxima || {}).map(([k, v]) => `${k} ${v}`).join(" · ");
  return [e.side ? t("library_side", { side: e.side }) : "", res].filter(Boolean).join(" · ");
}

function entryItem(e, dis) {
  const editing = renaming === e.id;
  return html`<li data-lib="${e.id}"><strong class="lib-name">${e.name}</strong>
    <small class="muted">${summary(e)}</small>
    <div class="buttons">
      <button type="button" data-lib-add="${e.id}" ${dis} aria-label="${t("library_add_label", { name: e.name })}">${t("library_add")}</button>
      <button type="button" class="secondary" data-lib-rename="${e.id}" aria-expanded="${editing ? "true" : "false"}">${t("library_rename")}</button>
      <button type="button" class="danger" data-lib-delete="${e.id}" aria-label="${t("library_delete_label", { name: e.name })}">${t("library_delete")}</button>
    </div>
    ${editing ? html`<form class="row-form" data-lib-form="${e.id}">
      <label>${t("library_rename_label", { name: e.name })} <input name="name" data-lib-name required maxlength="${NAME_MAX}" value="${e.name}"></label>
      <button type="submit">${t("library_save_name")}</button></form>` : ""}</li>`;
}

export function renderLibrary(app, b) {
  if (!b || !$("#library")) return;
  const ruleset = b.encounter.ruleset;
  const dis = b.encounter.closed || app.viewAt !== null ? html`disabled aria-disabled="true"` : "";
  const entries = library(ruleset);
  patch($("#library"), entries.length
    ? html`<p class="muted small">${t("library_hint", { ruleset })}</p>
      <ul class="library-list">${entries.map((e) => entryItem(e, dis))}</ul>`
    : html`<p class="muted small" id="library-empty">${t("library_empty")}</p>`);
  const war = b.encounter.campaign;
  patch($("#library-war"), war ? html`<p class="small" id="library-war-note">${t("library_war")}
    <a href="/w/${war}">${t("library_war_link")}</a></p>` : "");
}

function bindLibrary(app) {
  const box = $("#library");
  const msg = $("#library-msg");
  box.addEventListener("click", async (e) => {
    const btn = e.target.closest("button[data-lib-add], button[data-lib-rename], button[data-lib-delete]");
    if (!btn || btn.disabled) return;
    const b = app.board;
    const entry = library(b.encounter.ruleset).find((x) => x.id === (btn.dataset.libAdd || btn.dataset.libRename || btn.dataset.libDelete));
    if (!entry) return;
    if (btn.dataset.libAdd) {
      await addSheet(app, msg, { name: freeName(b, entry.name), side: entry.side || "monsters", sheet: entry.sheet,
        hidden: entry.hidden });
    } else if (btn.dataset.libRename) {
      renaming = renaming === entry.id ? null : entry.id;
      renderLibrary(app, app.shown());
      if (renaming) $(`form[data-lib-form="${entry.id}"] input`).focus();
    } else {
      libraryDelete(entry.id);
      if (renaming === entry.id) renaming = null;
      renderLibrary(app, app.shown());
      say(msg, t("library_deleted", { name: entry.name }));
    }
  });
  box.addEventListener("submit", (e) => {
    const form = e.target.closest("form[data-lib-form]");
    if (!form) return;
    e.preventDefault();
    const name = form.name.value.trim();
    if (!name) {
      say(msg, t("library_name_needed"), true);
      form.name.setAttribute("aria-invalid", "true");
      form.name.focus();
      return;
    }
    libraryRename(form.dataset.libForm, name);
    renaming = null;
    renderLibrary(app, app.shown());
    say(msg, t("library_renamed", { name }));
  });
}

// --- the players' entropy window ------------------------------------------------------

let waiting = false;

export function entropyShell() {
  return html`<div id="entropy-window" class="entropy-window" aria-live="polite"></div>`;
}

/** "entropy: Alba yes, Brun not yet" while no roll was made (the GM's board's `entropy`),
 * with a choice to wait for the others or go on and roll initiative. Gone at the first roll. */
export function renderEntropy(app, b) {
  const el = $("#entropy-window");
  const e = b.entropy;
  if (!el) return;
  if (!e || !e.open || app.viewAt !== null) {
    waiting = false;
    patch(el, "");
    return;
  }
  const parts = e.players.map((p) => t(p.added ? "entropy_yes" : "entropy_not_yet", { name: p.name }));
  if (e.gm) parts.push(t("entropy_gm"));
  if (e.others.length) parts.push(t("entropy_others", { names: e.others.join(", ") }));
  const missing = e.players.filter((p) => !p.added).map((p) => p.name);
  const list = parts.length ? parts.join(", ") : t("entropy_no_players");
  const note = missing.length ? (waiting ? t("entropy_waiting", { names: missing.join(", ") }) : "")
    : e.players.length ? t("entropy_all_in") : "";
  patch(el, html`<h3>${t("entropy_window")} <code class="rule">add_entropy</code></h3>
    <p id="entropy-line" data-missing="${missing.length}"><b>${t("entropy_line", { list })}</b></p>
    <p class="muted small">${t("entropy_window_hint")}</p>
    <div class="buttons">
      ${missing.length ? html`<button type="button" class="secondary" id="entropy-wait" aria-pressed="${waiting ? "true" : "false"}">${t("entropy_wait")}</button>` : ""}
      <button type="button" id="entropy-go">${t("entropy_go")}</button></div>
    <p id="entropy-note" class="small" role="status">${note}</p>`);
}

function bindEntropy(app) {
  $("#entropy-window").addEventListener("click", async (e) => {
    const btn = e.target.closest("button");
    if (!btn) return;
    if (btn.id === "entropy-wait") {
      waiting = true;
      renderEntropy(app, app.shown());
    } else if (btn.id === "entropy-go") {
      waiting = false;
      await app.send({ type: "roll_initiative" }, $("#gm-msg"));
    }
  });
}

// --- wiring -------------------------------------------------------------------------------

export function bindSetup(app) {
  bindLibrary(app);
  bindEntropy(app);
}

export function renderSetup(app, b) {
  renderLibrary(app, b);
  renderEntropy(app, b);
}
