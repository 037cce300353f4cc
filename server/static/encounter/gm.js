// The GM console: its forms, built once per page (add, adjust, conditions, history,
// settings, webhook), its keys, and what it redraws from each board.
import { api } from "../lib/api.js";
import { html, patch, $, $$, setOptions, copyText, say } from "../lib/dom.js";
import { t, lang } from "../i18n/index.js";
import { openAudit } from "./audit.js";
import { confirmClose } from "../lib/confirm.js";
import { reveal } from "../lib/fold.js";
import { webhookShell, bindWebhook } from "./webhook-card.js";
import { bindTools, renderTools, conditionsShell, turnExtras, hideShell, hiddenChosen } from "./gm-tools.js";
import { actionsHtml, bindCommands, nameOf, reactionsHtml } from "./actions.js";
import { onShareClick, renderAdjust, renderDisputes, renderShare } from "./gm-parts.js";
import { bindSetup, renderSetup, libraryShell, entropyShell } from "./setup.js";

// --- GM console -----------------------------------------------------------------------

export function gmShell(app) {
  const presets = Object.keys(app.rules.presets);
  return html`
    <section class="card" id="share-card" data-fold aria-labelledby="share-title">
      <h2 id="share-title">${t("share")}</h2>
      <div id="war-back"></div>
      <div id="share"></div>
      <p id="share-msg" class="form-msg" role="status"></p>
    </section>
    <section class="card turn-card" id="turn-card" tabindex="-1" aria-labelledby="turn-title">
      <h2 id="turn-title">${t("turn")}</h2>
      ${entropyShell()}
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
    <section class="card" id="add-card" data-fold aria-labelledby="add-title">
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
      ${libraryShell()}
    </section>
    <section class="card" id="adjust-card" data-fold aria-labelledby="adjust-title">
      <h2 id="adjust-title">${t("adjust")}</h2>
      <form id="adjust-form" class="grid-form" novalidate>
        <label>${t("combatant")} <select name="combatant" id="adj-combatant"></select></label>
        <label>${t("resource")} <select name="resource" id="adj-resource"></select></label>
        <label>${t("delta")} <input name="delta" id="adj-delta" type="number" required value="-1"></label>
        <label>${t("reason")} <input name="reason" id="adj-reason" required maxlength="2000"></label>
        <div class="wide"><button type="submit">${t("apply")}</button><span id="adjust-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>
    <section class="card" id="roll-card" data-fold aria-labelledby="roll-title">
      <h2 id="roll-title">${t("free_roll")}</h2>
      <form id="roll-form" class="grid-form">
        <label>${t("expr")} <input name="expr" id="roll-expr" required value="1d20" maxlength="40"></label>
        <label>${t("purpose")} <input name="purpose" id="roll-purpose" maxlength="2000"></label>
        <label class="check"><input type="checkbox" name="hidden" id="roll-hidden"> ${t("hidden_roll")}</label>
        <div class="wide"><button type="submit">${t("roll")}</button><span id="roll-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>
    <section class="card" id="disputes-card" data-fold aria-labelledby="disputes-title">
      <h2 id="disputes-title">${t("disputes")}</h2>
      <div id="gm-disputes"></div>
      <p id="disputes-msg" class="form-msg" role="status"></p>
    </section>
    <section class="card" id="export-card" data-fold aria-labelledby="export-title">
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
    <section class="card danger-zone" id="undo-card" data-fold aria-labelledby="undo-title">
      <h2 id="undo-title">${t("undo_close")}</h2>
      <form id="undo-form" class="row-form">
        <label>${t("reason")} <input name="reason" id="undo-reason" required maxlength="2000"></label>
        <button type="submit" class="secondary">${t("undo")}</button>
      </form>
      <div class="buttons"><button type="button" id="btn-close" class="danger">${t("close_reveal")}</button></div>
      <p id="undo-msg" class="form-msg" role="status"></p>
    </section>
    <section class="card" id="keys-card" data-fold aria-labelledby="keys-title">
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
      reveal($("#undo-reason"));
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
  bindSetup(app);
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
  renderSetup(app, b);
}
