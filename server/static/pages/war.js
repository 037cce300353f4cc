// The War page (`/w/<id>#token=...`): a ranks-d100 campaign between encounters. The Day,
// the characters with their pools, enrolment, mana transfers between a Master and its
// Servant, the new Day (recovery then upkeep), and encounters opened in the War.
import { request, warApi } from "../lib/api.js";
import { html, patch, $, setOptions, say } from "../lib/dom.js";
import { t, localized } from "../i18n/index.js";
import { save as saveEncounter, known, warSaved, keepWarGm } from "../lib/store.js";
import { Live } from "../lib/live.js";

const RULESET = "ranks-d100";

// --- the page -------------------------------------------------------------------------

const war = { id: null, token: null, view: null, presets: {}, report: null };

const why = (err) => (err.rule ? `${err.message} (${err.rule})` : err.message);

function pool(c, key) {
  const v = c.resources[key];
  const max = c.maxima[key];
  const pct = max ? Math.max(0, Math.min(100, Math.round((100 * v) / max))) : 0;
  const low = key === "hp" && max && v / max <= 0.25 ? " low" : "";
  return html`<div class="res pool ${key}${low}" data-pool="${key}">
    <span class="res-bar" role="meter" aria-label="${c.name} ${t(key)}" aria-valuemin="0"
      aria-valuemax="${max}" aria-valuenow="${v}"><span style="width:${pct}%"></span></span>
    <span class="res-val">${v}<span class="max">/${max}</span></span></div>`;
}

function flags(c) {
  const out = [];
  if (c.dead) out.push(html`<span class="badge out" data-flag="dead">${t("dead")}</span>`);
  else if (c.sidelined) out.push(html`<span class="badge warn" data-flag="sidelined">${t("sidelined")}</span>`);
  else out.push(html`<span class="badge ready" data-flag="ready">${t("ready")}</span>`);
  return out;
}

function charRow(c) {
  const kind = c.kind === "servant" ? t("kind_servant") : c.kind === "master" ? t("kind_master") : c.kind || "–";
  return html`<tr data-char="${c.id}" class="${c.dead ? "is-dead" : c.sidelined ? "is-sidelined" : ""}">
    <th scope="row" data-label="${t("name")}"><span class="char-name">${c.name}</span> <code class="muted">${c.id}</code>
      ${c.master_name ? html`<small class="muted servant-of">${t("servant_of", { name: c.master_name })}</small>` : ""}</th>
    <td data-label="${t("kind")}">${kind}</td>
    <td data-label="${t("hp")}">${pool(c, "hp")}</td>
    <td data-label="${t("mana")}">${pool(c, "mana")}</td>
    <td data-label="${t("luck_left")}" class="num" data-pool="luck"><span class="luck-val">${c.resources.luck}<span class="muted">/${c.maxima.luck}</span></span></td>
    <td data-label="${t("half_ranks")}" data-half>${c.half_ranks_used.length ? c.half_ranks_used.join(", ") : "–"}</td>
    <td data-label="${t("status")}">${flags(c)}</td>
  </tr>`;
}

function charsTable(v) {
  if (!v.characters.length) return html`<p class="muted">${t("no_characters")}</p>`;
  return html`<table class="chars">
    <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("kind")}</th><th scope="col">${t("hp")}</th>
      <th scope="col">${t("mana")}</th><th scope="col">${t("luck_left")}</th><th scope="col">${t("half_ranks")}</th>
      <th scope="col">${t("status")}</th></tr></thead>
    <tbody>${v.characters.map(charRow)}</tbody></table>`;
}

/** The new_day answer's lines as the server words them (projections/words/war.py). */
function dayReport(before, answer) {
  const started = answer.events.find((e) => e.type === "day_started");
  const day = started ? started.data.day : before.day + 1;
  const lines = (answer.lines || []).filter((l) => l.type !== "day_started").map((l) => localized(l, "text"));
  return { day, lines };
}

function renderReport() {
  const r = war.report;
  patch($("#day-report"), r
    ? html`<p class="day-head"><b>${t("day_n", { n: r.day })}</b></p>
      <ul class="day-lines">${(r.lines.length ? r.lines : [t("day_nothing")]).map((l) => html`<li>${l}</li>`)}</ul>`
    : "");
}

function encountersList(v) {
  const mine = known().filter((m) => m.war === war.id);
  const carried = new Set(v.encounters);
  if (!mine.length && !carried.size) return html`<p class="muted">${t("no_war_encounters")}</p>`;
  const ids = new Set(mine.map((m) => m.id));
  return html`<ul class="recent">${mine.map((m) => html`<li><a href="/e/${m.id}#token=${m.gm}&role=gm">${m.name}</a>
      ${carried.has(m.id) ? html`<span class="badge closed">${t("carried")}</span>` : html`<span class="badge">${t("open_now")}</span>`}</li>`)}
    ${[...carried].filter((e) => !ids.has(e)).map((e) => html`<li><a href="/e/${e}">${e.slice(0, 8)}</a>
      <span class="badge closed">${t("carried")}</span></li>`)}</ul>`;
}

function render() {
  const v = war.view;
  if (!v) return;
  document.title = `${v.name} · Fracas`;
  patch($("#war-head"), html`<h1 class="enc-name">${v.name} <small>${t("war")} · ${v.ruleset}</small></h1>
    <p class="meta"><span class="day">${t("day")} <b id="war-day">${v.day}</b></span>
      <span>${t("characters_n", { n: v.characters.length })}</span>
      <span class="ver">${t("version")} ${v.version}</span></p>`);
  patch($("#war-chars"), charsTable(v));
  renderReport();
  patch($("#war-encounters"), encountersList(v));
  if (!war.token) return;
  const open = $("#open-name");
  if (open.dataset.auto) open.value = t("default_fight", { n: v.day });
  const masters = v.characters.filter((c) => c.kind === "master" && !c.dead);
  setOptions($("#enroll-master"), [["", t("no_master")], ...masters.map((c) => [c.id, `${c.name} (${c.id})`])]);
  const all = v.characters.map((c) => [c.id, `${c.name} (${c.id})`]);
  setOptions($("#transfer-giver"), all);
  setOptions($("#transfer-receiver"), all);
  const giver = $("#transfer-giver");
  const receiver = $("#transfer-receiver");
  if (receiver.value === giver.value && all.length > 1) {
    // Propose the giver's Servant or Master first.
    const g = v.characters.find((c) => c.id === giver.value);
    const partner = v.characters.find((c) => c.master === g.id || c.id === g.master);
    receiver.value = partner ? partner.id : all.find(([id]) => id !== giver.value)[0];
  }
  const none = !v.characters.length;
  for (const el of [giver, receiver, $("#transfer-amount"), $("#transfer-form button")]) el.disabled = none;
}

async function reload() {
  war.view = await warApi.get(war.id, war.token);
  render();
}

function shell(v) {
  const presets = Object.keys(war.presets);
  const gm = Boolean(war.token);
  return html`
    <div class="war">
      <section class="card status war-status" aria-labelledby="war-title">
        <h2 id="war-title" class="sr-only">${t("war")}</h2>
        <div class="war-top">
          <div id="war-head"></div>
          ${gm ? html`<div class="war-day-box"><button type="button" id="btn-new-day">${t("new_day")}</button>
            <small class="muted">${localized(v.hints, "new_day")}</small></div>` : ""}
        </div>
        <p id="day-msg" class="form-msg" role="status"></p>
        <div id="day-report" aria-live="polite"></div>
        ${gm ? "" : html`<p class="muted small">${t("war_read_only")}</p>`}
      </section>
      <section class="card" aria-labelledby="chars-title">
        <h2 id="chars-title">${t("characters")}</h2>
        <div id="war-chars" class="table-wrap"></div>
      </section>
      ${gm ? html`<div class="war-forms">
      <section class="card" aria-labelledby="enroll-title">
        <h2 id="enroll-title">${t("enroll")}</h2>
        <form id="enroll-form" class="grid-form" novalidate>
          <label>${t("preset")} <select id="enroll-preset" name="preset">
            ${presets.map((p) => html`<option value="${p}">${p}</option>`)}
            <option value="">${t("custom_sheet")}</option></select></label>
          <label>${t("name")} <input id="enroll-name" name="name" required maxlength="80"></label>
          <label>${t("master_opt")} <select id="enroll-master" name="master"></select></label>
          <label class="wide" id="enroll-sheet-label" hidden>${t("sheet")}
            <textarea id="enroll-sheet" name="sheet" rows="7" spellcheck="false" aria-describedby="enroll-sheet-error"></textarea>
            <span id="enroll-sheet-error" class="field-error" role="alert"></span></label>
          <div class="wide"><button type="submit">${t("enroll_btn")}</button>
            <span id="enroll-msg" class="form-msg" role="status"></span></div>
        </form>
      </section>
      <section class="card" aria-labelledby="transfer-title">
        <h2 id="transfer-title">${t("transfer")}</h2>
        <form id="transfer-form" class="grid-form">
          <label>${t("giver")} <select id="transfer-giver" name="giver"></select></label>
          <label>${t("receiver")} <select id="transfer-receiver" name="receiver"></select></label>
          <label>${t("amount")} <input id="transfer-amount" name="amount" type="number" min="1" step="1" required value="10"
            aria-describedby="transfer-msg"></label>
          <div class="wide"><button type="submit">${t("transfer_btn")}</button>
            <span id="transfer-msg" class="form-msg" role="status"></span></div>
          <small class="wide muted">${localized(v.hints, "transfer")}</small>
        </form>
      </section>
      <section class="card" aria-labelledby="open-title">
        <h2 id="open-title">${t("open_encounter")}</h2>
        <form id="open-form" class="row-form">
          <label>${t("name")} <input id="open-name" name="name" required maxlength="120" data-auto="1" value="${t("default_fight", { n: v.day })}"></label>
          <button type="submit">${t("open_btn")}</button>
        </form>
        <small class="muted">${t("open_hint")}</small>
        <p id="open-msg" class="form-msg" role="status"></p>
      </section>
      </div>` : ""}
      <section class="card" aria-labelledby="war-enc-title">
        <h2 id="war-enc-title">${t("war_encounters")}</h2>
        <div id="war-encounters"></div>
      </section>
    </div>`;
}

function syncSheet() {
  const preset = $("#enroll-preset").value;
  $("#enroll-sheet-label").hidden = preset !== "";
  const sheet = $("#enroll-sheet");
  if (preset === "" && !sheet.value) sheet.value = JSON.stringify(Object.values(war.presets)[0] || {}, null, 1);
  const name = $("#enroll-name");
  if (!name.value || name.dataset.auto) {
    name.value = preset;
    name.dataset.auto = "1";
  }
  // A Servant preset proposes the first Master.
  const p = war.presets[preset];
  const master = $("#enroll-master");
  if (p && p.kind !== "servant") master.value = "";
  else if (p && p.kind === "servant" && !master.value && master.options.length > 1) master.value = master.options[1].value;
}

function bind() {
  if (!war.token) return;
  $("#btn-new-day").addEventListener("click", async (e) => {
    const btn = e.currentTarget;
    const msg = $("#day-msg");
    const before = war.view;
    btn.disabled = true;
    try {
      const answer = await warApi.command(war.id, war.token, { type: "new_day" });
      war.report = dayReport(before, answer);
      say(msg, "");
      await reload();
    } catch (err) {
      say(msg, why(err), true);
    } finally {
      btn.disabled = false;
    }
  });

  $("#open-name").addEventListener("input", (e) => { delete e.target.dataset.auto; });
  $("#enroll-preset").addEventListener("change", syncSheet);
  $("#enroll-name").addEventListener("input", (e) => { delete e.target.dataset.auto; });
  $("#enroll-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    const msg = $("#enroll-msg");
    const sheetErr = $("#enroll-sheet-error");
    const area = $("#enroll-sheet");
    sheetErr.textContent = "";
    area.removeAttribute("aria-invalid");
    say(msg, "");
    const name = f.name.value.trim();
    if (!name) {
      say(msg, t("name_required"), true);
      f.name.focus();
      return;
    }
    let sheet;
    const custom = f.preset.value === "";
    if (custom) {
      try { sheet = JSON.parse(area.value || "{}"); } catch (err) {
        sheetErr.textContent = err.message;
        area.setAttribute("aria-invalid", "true");
        area.focus();
        return;
      }
    } else sheet = war.presets[f.preset.value];
    const body = { type: "enroll", name, sheet };
    if (f.master.value) body.master = f.master.value;
    try {
      const answer = await warApi.command(war.id, war.token, body);
      say(msg, t("enrolled", { name, id: answer.character_id }));
      await reload();
      f.name.value = "";
      syncSheet();
    } catch (err) {
      if (custom) {
        sheetErr.textContent = why(err);
        area.setAttribute("aria-invalid", "true");
      } else say(msg, why(err), true);
    }
  });

  $("#transfer-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    const msg = $("#transfer-msg");
    const amount = Number(f.amount.value);
    if (!Number.isInteger(amount) || amount < 1) {
      say(msg, t("amount_positive"), true);
      f.amount.setAttribute("aria-invalid", "true");
      return;
    }
    f.amount.removeAttribute("aria-invalid");
    try {
      await warApi.command(war.id, war.token, { type: "transfer_mana", giver: f.giver.value, receiver: f.receiver.value, amount });
      const nameOf = (cid) => (war.view.characters.find((c) => c.id === cid) || {}).name || cid;
      say(msg, t("mana_moved", { giver: nameOf(f.giver.value), receiver: nameOf(f.receiver.value), amount }));
      await reload();
    } catch (err) {
      say(msg, why(err), true);
    }
  });

  $("#open-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const msg = $("#open-msg");
    const name = $("#open-name").value.trim();
    if (!name) {
      say(msg, t("name_required"), true);
      return;
    }
    try {
      const made = await warApi.openEncounter(war.token, { ruleset: RULESET, name, campaign: war.id });
      const players = {};
      for (const c of made.combatants || []) players[c.combatant_id] = { name: c.name, token: c.player_token };
      saveEncounter(made.id, { gm: made.gm_token, spectator: made.spectator_token, name, ruleset: RULESET,
        created: Date.now(), war: war.id, players });
      location.assign(`/e/${made.id}#token=${made.gm_token}&role=gm`);
    } catch (err) {
      say(msg, why(err), true);
    }
  });
}

function mount() {
  $("#main").innerHTML = String(shell(war.view));
  if (war.token) {
    render(); // fill the master select before the preset proposes one
    syncSheet();
  }
  bind();
  render();
}

function setBadge() {
  const el = $("#role-badge");
  el.hidden = false;
  el.dataset.role = war.token ? "gm" : "spectator";
  el.textContent = war.token ? t("war_gm") : t("spectator");
}

/** Re-draw in the current language (the language toggle). */
export function remountWar() {
  if (!war.view) return;
  setBadge();
  mount();
}

export async function warPage(id) {
  const hash = new URLSearchParams(location.hash.slice(1));
  const mem = warSaved(id);
  war.id = id;
  war.token = hash.get("token") || mem.gm || null;
  let rulesets;
  try {
    try {
      [war.view, rulesets] = await Promise.all([warApi.get(id, war.token), request("GET", "/api/rulesets")]);
    } catch (err) {
      // A link whose token this War refuses: this browser's own GM token still opens it.
      if (err.status !== 401 || !mem.gm || war.token === mem.gm) throw err;
      war.token = mem.gm;
      [war.view, rulesets] = await Promise.all([warApi.get(id, war.token), request("GET", "/api/rulesets")]);
    }
  } catch (err) {
    $("#main").innerHTML = String(html`<p class="error card">${t("war_not_found")} (${err.message})</p>`);
    return;
  }
  // Only the GM's token sees the sheets: a token that shows none is not the War's GM's.
  if (war.token && war.view.characters.some((c) => !("sheet" in c))) war.token = null;
  // A link never replaces the GM token this browser keeps without asking.
  if (war.token) keepWarGm(id, war.token, { name: war.view.name });
  war.presets = (rulesets.find((r) => r.id === RULESET) || {}).presets || {};
  setBadge();
  mount();
  // The live feed: every change to the War's stream (an encounter carried back, a new Day)
  // arrives as the War's view for this token.
  war.live = new Live({
    id,
    token: war.token,
    kind: "campaigns",
    onBoard: (view) => {
      if (war.view && view.version < war.view.version) return;
      war.view = view;
      render();
    },
    onState: setConn,
  });
  war.live.start(war.view.version);
}

function setConn(state) {
  const el = $("#conn");
  if (!el) return;
  el.hidden = false;
  el.dataset.state = state;
  el.textContent = t(state);
}
