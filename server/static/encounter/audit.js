// The audit panel of one roll: who, why, dice, every modifier with its rule id,
// threshold, outcome and proof; players and the GM may dispute the roll from here.
import { api } from "../lib/api.js";
import { html, patch, $ } from "../lib/dom.js";
import { t, localized, outcome } from "../i18n/index.js";
import { diceCharts } from "../lib/charts.js";

let ctx = null; // {id, token, canDispute, onDisputed}
let lastFocus = null;
let current = null;

export function setupAudit(context) {
  ctx = context;
  $("#audit-close").addEventListener("click", closeAudit);
  $("#audit").addEventListener("click", (e) => { if (e.target.id === "audit") closeAudit(); });
  document.addEventListener("keydown", (e) => {
    if ($("#audit").hidden) return;
    if (e.key === "Escape") closeAudit();
    if (e.key === "Tab") trapFocus(e);
  });
}

/** Keep Tab inside the open panel (it is modal). */
function trapFocus(e) {
  const items = Array.from($("#audit .panel").querySelectorAll("button, input, select, textarea, a[href]"))
    .filter((el) => !el.disabled && el.offsetParent !== null);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  } else if (!$("#audit .panel").contains(document.activeElement)) {
    e.preventDefault();
    first.focus();
  }
}

export function closeAudit() {
  $("#audit").hidden = true;
  current = null;
  if (lastFocus && lastFocus.isConnected) lastFocus.focus();
}

export function proofBadge(proof) {
  return html`<span class="proof proof-${proof}" data-proof="${proof}">${t(`proof_${proof}`)}</span>`;
}

const sign = (n) => (n > 0 ? `+${n}` : `${n}`);
// A rule id links to its text (GET /rules/{id}, from the shipped digests).
const rule = (r) =>
  r ? html`<a class="rule" href="/rules/${encodeURIComponent(r)}" target="_blank" rel="noopener"
    title="${r}"><code>${r}</code></a>` : "";

export function auditHtml(a) {
  const c = a.check;
  const act = a.action;
  const checkRows = c ? html`
    <tr><th>${t("check")}</th><td>${c.stat} ${rule(c.rule)}</td></tr>
    <tr><th>${t("base")}</th><td>${c.base}</td></tr>
    <tr><th>${t("modifiers")}</th><td>${c.modifiers.length ? html`<ul class="mods">${c.modifiers.map((m) => html`
      <li><span class="delta">${sign(m.delta)}</span> ${m.source} ${rule(m.rule)}</li>`)}</ul>`
      : html`<span class="muted">${t("no_modifiers")}</span>`}</td></tr>
    <tr><th>${t("threshold")}</th><td>${c.under ? t("at_most") : t("at_least")} <b>${c.threshold}</b></td></tr>
    <tr><th>${t("outcome")}</th><td><b class="outcome o-${c.outcome}">${outcome(c.outcome)}</b>
      ${c.margin !== null && c.margin !== undefined ? html` · ${t("margin")} ${c.margin}` : ""}</td></tr>`
    : html`<tr><th>${t("check")}</th><td class="muted">${t("plain_roll")}</td></tr>`;
  const source = a.source === "manual" ? t("manual_source") : t("seed", { s: a.seed_id, n: a.roll_number });
  return html`
    <table class="facts">
      <tr><th>${t("who")}</th><td>${a.actor_name || a.actor || "GM"}</td></tr>
      <tr><th>${t("why")}</th><td>${localized(a, "purpose") || "–"}</td></tr>
      ${act ? html`<tr><th>${t("action")}</th><td>${localized(act, "text") || `${act.actor_name}: ${localized(act)}`}
        ${act.rank ? html` (${t("rank")} ${act.rank})` : ""} ${rule(act.rule)}</td></tr>` : ""}
      <tr><th>${t("die")}</th><td><code>${a.expr}</code> (${a.sizes.map((s) => `d${s}`).join(", ")})</td></tr>
      <tr><th>${t("faces")}</th><td>${a.faces.map((f) => html`<span class="die">${f}</span>`)} → <b>${a.total}</b></td></tr>
      ${checkRows}
      <tr><th>${t("rules")}</th><td>${a.rules.length ? a.rules.map(rule) : "–"}</td></tr>
      <tr><th>${t("source")}</th><td>${source}</td></tr>
      <tr><th>${t("proof")}</th><td>${proofBadge(a.proof)} <span class="muted">${a.proof_detail}</span></td></tr>
      ${a.commitment ? html`<tr><th>${t("commitment")}</th><td><code class="hash">${a.commitment}</code></td></tr>` : ""}
      <tr><th>${t("event")}</th><td>${t("version")} ${a.version} · <code class="hash">${a.hash}</code></td></tr>
    </table>
    ${a.disputes.length ? html`<h3>${t("disputes")}</h3><ul class="disputes">${a.disputes.map((d) => html`
      <li>${t("disputed_by", { by: d.by, reason: d.reason })} <span class="muted">(${t("version")} ${d.version})</span>
        ${d.answer !== undefined ? html`<p class="dispute-answer" data-answered="${d.answered_version}">${t("dispute_answered", { answer: d.answer })} <span class="muted">(${t("version")} ${d.answered_version})</span></p>` : html`<span class="muted">· ${t("dispute_open")}</span>`}</li>`)}</ul>` : ""}`;
}

export async function openAudit(n, opener) {
  lastFocus = opener || document.activeElement;
  current = n;
  $("#audit-title").textContent = `${t("audit")} · ${t("roll_n", { n })}`;
  $("#audit-close").textContent = t("close_panel");
  $("#audit-body").innerHTML = `<p class="muted">${t("loading")}</p>`;
  $("#audit-msg").textContent = "";
  $("#audit").hidden = false;
  $("#audit-close").focus();
  await refreshAudit();
}

export async function refreshAudit() {
  if (current === null) return;
  const n = current;
  let a;
  try {
    a = await api.roll(ctx.id, ctx.token, n);
  } catch (e) {
    patch($("#audit-body"), html`<p class="error" role="alert">${e.message}</p>`);
    return;
  }
  if (current !== n) return;
  const form = ctx.canDispute() ? html`
    <form id="dispute-form" class="row-form">
      <label>${t("dispute_reason")} <input name="reason" id="dispute-reason" required maxlength="2000"></label>
      <button type="submit">${t("dispute")}</button>
    </form>` : "";
  const body = $("#audit-body");
  body._rendered = null;
  body.innerHTML = String(html`${auditHtml(a)}${form}<section class="audit-dice" aria-labelledby="audit-dice-title">
    <h3 id="audit-dice-title">${t("dice_title")}</h3><div id="audit-dice"></div></section>`);
  showFairness(a, n);
  const f = $("#dispute-form");
  if (f) {
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      const msg = $("#audit-msg");
      try {
        await api.command(ctx.id, ctx.token, { type: "dispute", roll: n, reason: f.reason.value });
        msg.textContent = t("disputed");
        msg.className = "form-msg ok";
        if (ctx.onDisputed) ctx.onDisputed();
        await refreshAudit();
      } catch (err) {
        msg.textContent = err.message;
        msg.className = "form-msg error";
      }
    });
  }
}

/** How this roll's dice have behaved over the encounter (same source, same sizes). */
async function showFairness(a, n) {
  let stats;
  try {
    stats = await api.dice(ctx.id, ctx.token);
  } catch {
    return;
  }
  const el = $("#audit-dice");
  if (current !== n || !el) return;
  const only = [...new Set(a.sizes.map((s) => `d${s}`))];
  el.innerHTML = String(diceCharts(stats, { only, source: a.source === "manual" ? "manual" : "server" }));
}

export function auditOpen() { return current; }
