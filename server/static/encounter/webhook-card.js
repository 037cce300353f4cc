// The GM console's webhook card (play-by-post, docs/api.md "Webhooks"): the URL, the
// format (Discord or JSON), the kinds announced and the language of the texts; saving
// shows the signing secret once, with a copy button; the last deliveries with their
// status, read again every few seconds while a webhook is set; "send a test" queues one
// delivery of kind `test` after the others; delete removes the webhook.
import { api } from "../lib/api.js";
import { html, patch, $, $$, copyText, say } from "../lib/dom.js";
import { t } from "../i18n/index.js";

const KINDS = ["turn_started", "reaction_awaited", "round_started", "dispute_opened", "encounter_closed", "deadline"];
const SHOWN = 10; // deliveries listed
const EVERY = 2000; // ms between two reads of the deliveries

export function webhookShell() {
  return html`
    <section class="card" id="hook-card" data-fold aria-labelledby="hook-title">
      <h2 id="hook-title">${t("hook_title")}</h2>
      <p class="muted small">${t("hook_hint")}</p>
      <form id="hook-form" class="grid-form" novalidate>
        <label class="wide">${t("hook_url")} <input name="url" id="hook-url" type="url" required
          maxlength="2000" autocomplete="off" spellcheck="false" placeholder="https://discord.com/api/webhooks/…"></label>
        <label>${t("hook_format")} <select name="format" id="hook-format">
          <option value="discord">Discord</option><option value="json">JSON</option></select></label>
        <label>${t("hook_lang")} <select name="lang" id="hook-lang">
          <option value="en">English</option><option value="fr" lang="fr">Français</option></select></label>
        <fieldset class="wide hook-kinds"><legend>${t("hook_kinds")}</legend>
          ${KINDS.map((k) => html`<label class="check"><input type="checkbox" name="kinds" value="${k}" checked> ${t(`hook_kind_${k}`)}</label>`)}
        </fieldset>
        <div class="wide buttons">
          <button type="submit" id="hook-save">${t("hook_save")}</button>
          <button type="button" id="hook-test" class="secondary" disabled>${t("hook_test")}</button>
          <button type="button" id="hook-delete" class="danger" disabled>${t("hook_delete")}</button>
          <span id="hook-msg" class="form-msg" role="status"></span>
        </div>
      </form>
      <div id="hook-secret" class="hook-secret" hidden>
        <label for="hook-secret-value">${t("hook_secret")}</label>
        <div class="copy-line"><input id="hook-secret-value" type="text" readonly>
          <button type="button" id="hook-secret-copy">${t("copy")}</button></div>
        <small class="muted">${t("hook_secret_once")}</small>
      </div>
      <h3>${t("hook_deliveries")}</h3>
      <ul id="hook-deliveries" class="hook-deliveries" aria-live="polite"></ul>
    </section>`;
}

/** A delivery's status in words: delivered, failed after N attempts, retrying, pending. */
function statusText(d) {
  const why = d.last_status ? t("hook_http", { status: d.last_status }) : d.last_error ? t("hook_no_answer") : "";
  if (d.status === "delivered") return t("hook_delivered");
  if (d.status === "failed") return `${t("hook_failed", { n: d.attempts })}${why ? ` (${why})` : ""}`;
  if (d.attempts > 0 && d.last_error) return `${t("hook_retrying", { n: d.attempts })}${why ? ` (${why})` : ""}`;
  return t("hook_pending");
}

function deliveryItem(d) {
  const kind = t(`hook_kind_${d.kind}`);
  return html`<li data-delivery="${d.id}" data-kind="${d.kind}" data-status="${d.status}" class="hook-${d.status}">
    <span class="hook-kind">${kind}</span> <small class="muted">v${d.version}</small>
    <span class="hook-status">${statusText(d)}</span></li>`;
}

function renderDeliveries(app, deliveries) {
  patch($("#hook-deliveries"), deliveries === null
    ? html`<li class="muted">${t("hook_none")}</li>`
    : deliveries.length ? deliveries.map(deliveryItem) : html`<li class="muted">${t("hook_no_delivery")}</li>`);
}

function setHook(app, hook) {
  app.hook = hook;
  $("#hook-test").disabled = !hook;
  $("#hook-delete").disabled = !hook;
  if (!hook) renderDeliveries(app, null);
}

/** Fill the form from the webhook the server holds (none: the defaults stay). */
async function loadHook(app) {
  try {
    const listed = await api.webhookDeliveries(app.id, app.token, SHOWN);
    if (listed.webhook === null) { setHook(app, null); return; }
    const hook = await api.webhook(app.id, app.token);
    $("#hook-url").value = hook.url;
    $("#hook-format").value = hook.format;
    $("#hook-lang").value = hook.lang;
    for (const box of $$("#hook-form input[name=kinds]")) box.checked = hook.kinds.includes(box.value);
    setHook(app, { id: hook.id });
    renderDeliveries(app, listed.deliveries);
  } catch (err) {
    if (err.status === 404) setHook(app, null); // removed meanwhile
    else say($("#hook-msg"), err.message, true);
  }
}

async function refresh(app) {
  if (!app.hook || document.hidden || app.hookReading) return;
  app.hookReading = true; // one read at a time, however long the server takes
  try {
    const listed = await api.webhookDeliveries(app.id, app.token, SHOWN);
    if (listed.webhook === null) setHook(app, null); // removed from another device
    else renderDeliveries(app, listed.deliveries);
  } catch {
    // the server away: the next read tries again (the live feed says so meanwhile)
  } finally {
    app.hookReading = false;
  }
}

export function bindWebhook(app) {
  const msg = $("#hook-msg");
  $("#hook-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const form = e.target;
    const kinds = $$("input[name=kinds]:checked", form).map((box) => box.value);
    if (!form.url.value.trim()) { say(msg, t("hook_url_needed"), true); return; }
    if (!kinds.length) { say(msg, t("hook_kinds_needed"), true); return; }
    try {
      const made = await api.setWebhook(app.id, app.token, {
        url: form.url.value.trim(), format: form.format.value, lang: form.lang.value, kinds,
      });
      $("#hook-secret-value").value = made.secret; // shown once: the server keeps no copy to show
      $("#hook-secret").hidden = false;
      setHook(app, { id: made.id });
      renderDeliveries(app, []);
      say(msg, t("hook_saved"));
    } catch (err) {
      say(msg, err.message, true);
    }
  });
  $("#hook-secret-copy").addEventListener("click", async (e) => {
    const ok = await copyText($("#hook-secret-value").value);
    e.target.textContent = ok ? t("copied") : t("copy");
    setTimeout(() => { e.target.textContent = t("copy"); }, 1500);
  });
  $("#hook-test").addEventListener("click", async () => {
    try {
      await api.testWebhook(app.id, app.token);
      say(msg, t("hook_test_queued"));
      await refresh(app);
    } catch (err) {
      say(msg, err.message, true);
    }
  });
  $("#hook-delete").addEventListener("click", async () => {
    try {
      await api.deleteWebhook(app.id, app.token);
      $("#hook-secret").hidden = true;
      $("#hook-secret-value").value = "";
      setHook(app, null);
      say(msg, t("hook_deleted"));
    } catch (err) {
      say(msg, err.message, true);
    }
  });
  loadHook(app);
  setInterval(() => refresh(app), EVERY);
}
