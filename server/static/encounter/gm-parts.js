// The GM console's parts that follow the board: the links to share (spectators, each
// player's), the adjust form's choices and the open disputes.
import { api } from "../lib/api.js";
import { html, patch, $, setOptions, copyText, say } from "../lib/dom.js";
import { t, outcome, lang } from "../i18n/index.js";
import { proofBadge } from "./audit.js";
import { warSaved, save } from "../lib/store.js";
import { disputeItem } from "./gm-tools.js";
import { nameOf } from "./actions.js";

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
export async function onShareClick(app, btn) {
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

export function renderShare(app, b) {
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

export function renderAdjust(app, b) {
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

export function renderDisputes(app, b) {
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
