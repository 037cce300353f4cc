// The home page: create an encounter (rule system, name, settings with their defaults),
// or start a War (a ranks-d100 campaign) and land on its page.
import { api, warApi } from "../lib/api.js";
import { html, $, esc, copyText } from "../lib/dom.js";
import { t, localized } from "../i18n/index.js";
import { save, known, warSave, knownWars, exportAll, importAll, encodeExport, decodeExport, hasLibrary } from "../lib/store.js";

function settingField(key, s) {
  const id = `set-${key.replace(/[^\w-]/g, "_")}`;
  // The label is what the setting does, in the page's language; its key (what the API
  // and the URL take) and its rule are the fine print under it.
  const words = localized(s, "description") || key;
  const label = words.charAt(0).toUpperCase() + words.slice(1);
  const help = html`<small class="muted"><code>${key}</code> · <code class="rule">${s.rule}</code> · ${t("default")}: <b>${typeof s.default === "object" ? JSON.stringify(s.default) : String(s.default)}</b></small>`;
  let input;
  if (s.choices && s.choices.length > 1) {
    input = html`<select id="${id}" data-key="${key}">${s.choices.map((c) => html`
      <option value="${String(c)}" ${c === s.default ? "selected" : ""}>${String(c)}</option>`)}</select>`;
  } else if (typeof s.default === "boolean") {
    input = html`<input id="${id}" type="checkbox" data-key="${key}" ${s.default ? "checked" : ""}>`;
  } else if (typeof s.default === "number") {
    input = html`<input id="${id}" type="number" data-key="${key}" value="${s.default}">`;
  } else if (typeof s.default === "object" && s.default !== null) {
    input = html`<input id="${id}" type="text" data-key="${key}" data-json value="${JSON.stringify(s.default)}" spellcheck="false">`;
  } else if (s.choices && s.choices.length === 1) {
    input = html`<input id="${id}" type="text" data-key="${key}" value="${String(s.default)}" readonly>`;
  } else {
    input = html`<input id="${id}" type="text" data-key="${key}" value="${String(s.default)}">`;
  }
  return html`<div class="setting" data-setting="${key}"><label for="${id}">${label}</label>${input}${help}</div>`;
}

function readSettings(rules) {
  const out = {};
  for (const el of document.querySelectorAll("#settings [data-key]")) {
    const s = rules.settings[el.dataset.key];
    let v;
    if (el.dataset.json !== undefined) {
      try { v = JSON.parse(el.value); } catch { throw new Error(`${el.dataset.key}: not valid JSON`); }
      if (JSON.stringify(v) === JSON.stringify(s.default)) continue;
      out[el.dataset.key] = v;
      continue;
    }
    if (el.type === "checkbox") v = el.checked;
    else if (typeof s.default === "number") v = Number(el.value);
    else v = s.choices.find((c) => String(c) === el.value) ?? el.value;
    if (v !== s.default) out[el.dataset.key] = v;
  }
  return out;
}

export async function home(main) {
  let rulesets;
  try {
    rulesets = await api.rulesets();
  } catch (e) {
    main.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    return;
  }
  // A link made by "carry to another device": merge it in, then drop it from the address.
  let imported = null;
  const carried = new URLSearchParams(location.hash.slice(1)).get("import");
  if (carried) {
    imported = importAll(decodeExport(carried));
    history.replaceState(null, "", location.pathname);
  }
  const mine = known();
  const wars = knownWars();
  main.innerHTML = String(html`
    <div class="home">
      <section class="card" aria-labelledby="create-title">
        <h1 id="create-title">${t("create_title")}</h1>
        <form id="create-form" class="grid-form">
          <label>${t("ruleset")} <select id="ruleset" name="ruleset">${rulesets.map((r) => html`
            <option value="${r.id}">${localized(r, "name")} (${r.id})</option>`)}</select></label>
          <label>${t("name")} <input id="enc-name" name="name" required maxlength="120" value="Skirmish"></label>
          <details class="wide" id="settings-box"><summary>${t("settings")}</summary>
            <div id="settings" class="settings"></div></details>
          <div class="wide"><button type="submit" id="create">${t("create")}</button>
            <span id="create-msg" class="form-msg" role="status"></span></div>
        </form>
      </section>
      <section class="card" aria-labelledby="war-create-title">
        <h2 id="war-create-title">${t("war_start_title")}</h2>
        <p class="muted small">${t("war_start_hint")}</p>
        <form id="war-form" class="row-form">
          <label>${t("war_name")} <input id="war-name" name="name" required maxlength="80" value="${t("war_default_name")}"></label>
          <button type="submit" id="war-create">${t("war_start")}</button>
        </form>
        <p id="war-msg" class="form-msg" role="status"></p>
      </section>
      <section class="card sim-link" aria-labelledby="sim-link-title">
        <h2 id="sim-link-title"><a id="sim-link" href="/simulate">${t("sim_link")}</a></h2>
        <p class="muted small">${t("sim_link_hint")} <code class="rule">NA-37</code></p>
      </section>
      ${wars.length ? html`<section class="card" aria-labelledby="wars-title">
        <h2 id="wars-title">${t("your_wars")}</h2>
        <ul class="recent">${wars.map((w) => html`<li><a href="/w/${w.id}#token=${w.gm}">${w.name}</a>
          <small class="muted">ranks-d100</small></li>`)}</ul></section>` : ""}
      ${mine.length ? html`<section class="card" aria-labelledby="mine-title">
        <h2 id="mine-title">${t("your_encounters")}</h2>
        <ul class="recent">${mine.map((m) => html`<li><a href="/e/${m.id}#token=${m.gm}&role=gm">${m.name}</a>
          <small class="muted">${m.ruleset}</small></li>`)}</ul></section>` : ""}
      <section class="card" aria-labelledby="carry-title">
        <h2 id="carry-title">${t("carry_title")}</h2>
        <p class="muted small">${t("carry_hint")}</p>
        <div class="buttons">
          ${mine.length || wars.length || hasLibrary() ? html`<button type="button" id="carry-link">${t("carry_link")}</button>
          <button type="button" id="carry-file" class="secondary">${t("carry_file")}</button>` : ""}
          <label class="file-label">${t("carry_import")} <input type="file" id="carry-import" accept="application/json,.json"></label>
        </div>
        <input type="text" id="carry-out" readonly hidden aria-label="${t("carry_link")}">
        <p id="carry-msg" class="form-msg" role="status"></p>
      </section>
    </div>`);
  const carryMsg = $("#carry-msg");
  const said = (counts) => {
    carryMsg.textContent = counts ? t("carry_done", counts) : t("carry_bad");
    carryMsg.className = `form-msg ${counts ? "ok" : "error"}`;
  };
  if (carried) said(imported);
  if ($("#carry-link")) {
    $("#carry-link").addEventListener("click", async () => {
      const link = `${location.origin}/#import=${encodeExport(exportAll())}`;
      const out = $("#carry-out");
      out.hidden = false;
      out.value = link;
      out.select();
      const ok = await copyText(link);
      carryMsg.textContent = ok ? t("copied") : "";
      carryMsg.className = "form-msg ok";
    });
    $("#carry-file").addEventListener("click", () => {
      const blob = new Blob([JSON.stringify(exportAll(), null, 1)], { type: "application/json" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = "fracas-browser.json";
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    });
  }
  $("#carry-import").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    let data = null;
    try { data = JSON.parse(await file.text()); } catch { data = null; }
    const counts = importAll(data);
    if (counts) home(main).then(() => said(counts));
    else said(null);
  });
  const select = $("#ruleset");
  const fill = () => {
    const rules = rulesets.find((r) => r.id === select.value);
    $("#settings").innerHTML = Object.entries(rules.settings).map(([k, s]) => String(settingField(k, s))).join("");
  };
  select.addEventListener("change", fill);
  fill();
  $("#create-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const rules = rulesets.find((r) => r.id === select.value);
    const msg = $("#create-msg");
    try {
      const made = await api.create({ ruleset: rules.id, name: $("#enc-name").value.trim(), settings: readSettings(rules) });
      save(made.id, { gm: made.gm_token, spectator: made.spectator_token, name: $("#enc-name").value.trim(),
        ruleset: rules.id, created: Date.now() });
      location.assign(`/e/${made.id}#token=${made.gm_token}&role=gm`);
    } catch (err) {
      msg.textContent = err.message;
      msg.className = "form-msg error";
    }
  });
  $("#war-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const msg = $("#war-msg");
    const name = $("#war-name").value.trim();
    if (!name) {
      msg.textContent = t("name_required");
      msg.className = "form-msg error";
      return;
    }
    try {
      const made = await warApi.create({ name, ruleset: "ranks-d100" });
      warSave(made.id, { gm: made.gm_token, name, created: Date.now() });
      location.assign(`/w/${made.id}#token=${made.gm_token}`);
    } catch (err) {
      msg.textContent = err.message;
      msg.className = "form-msg error";
    }
  });
}
