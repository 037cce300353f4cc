// The automatic 1v1 resolver of d20-na (NA-37..NA-40): two fighters (a preset or a JSON
// sheet), many seeded duels on the server, win rates with their 95% intervals, and one
// fight told in words. NA-38's buttons sit at the bottom: save the outcome as text (left),
// start the combat (middle, it also remembers the stats entered), reset the counters
// (right, the inputs stay so the combat can be rerun).
import { api, request } from "../lib/api.js";
import { html, $, esc, copyText, say as sayIn } from "../lib/dom.js";
import { t, lang } from "../i18n/index.js";
import { simCharts, simCompare } from "../lib/charts.js";

const KEY = "fracas:simulate";
const SIDES = ["a", "b"];
const DEFAULTS = { a: "milicien", b: "fangeux" };
const CUSTOM = "custom";

const sim = {
  main: null,
  presets: {},
  form: null,      // what the inputs hold, kept across a language switch
  result: null,    // the server's last answer
  body: null,      // the request that gave it
  running: false,
  download: null,  // the object URL of the report file
  kept: null,      // a run kept to compare the next ones with
};

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const pretty = (sheet) => JSON.stringify(sheet, null, 1);

function remembered() {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) || "null");
    if (raw && raw.a && raw.b) return raw;
  } catch { /* storage off or damaged: start afresh */ }
  return null;
}

function remember(form) {
  try { localStorage.setItem(KEY, JSON.stringify(form)); } catch { /* storage may be off */ }
}

function freshForm() {
  const side = (s) => {
    const preset = sim.presets[DEFAULTS[s]] ? DEFAULTS[s] : Object.keys(sim.presets)[0] || CUSTOM;
    return { preset, name: preset === CUSTOM ? "" : cap(preset), sheet: pretty(sim.presets[preset] || {}) };
  };
  return { a: side("a"), b: side("b"), fights: 200, seed: "", save: false };
}

function parseSheet(text) {
  const sheet = JSON.parse(text);
  if (!sheet || typeof sheet !== "object" || Array.isArray(sheet)) throw new Error(t("sim_sheet_object"));
  return sheet;
}

function statsLine(sheet) {
  const parts = ["ATT", "PAR", "HAB", "INI", "NA"].filter((k) => sheet[k] !== undefined).map((k) => `${k} ${sheet[k]}`);
  if (sheet.hp !== undefined) parts.push(`${t("hp")} ${sheet.hp}`);
  for (const w of sheet.weapons || []) {
    if ((w.kind || "melee") === "melee") parts.push(`${w.name} ${w.dmg}${w.dice ? `+${w.dice}` : ""}`);
  }
  if (sheet.shield) parts.push(`${t("sim_shield")} ${sheet.shield.name || ""}`.trim());
  return parts.join(" · ");
}

function fighterBox(side) {
  const f = sim.form[side];
  const options = [...Object.keys(sim.presets), CUSTOM];
  let dodge = false;
  let stats = "";
  try {
    const sheet = parseSheet(f.sheet);
    dodge = Boolean(sheet.skills && sheet.skills.dodge);
    stats = statsLine(sheet);
  } catch { /* shown when the textarea is edited */ }
  return html`
    <fieldset class="sim-fighter" id="fighter-${side}">
      <legend>${t(`sim_fighter_${side}`)}</legend>
      <div class="sim-fields">
        <label>${t("preset")} <select id="sim-preset-${side}" data-side="${side}">${options.map((p) => html`
          <option value="${p}" ${p === f.preset ? "selected" : ""}>${p === CUSTOM ? t("sim_custom") : cap(p)}</option>`)}</select></label>
        <label>${t("name")} <input id="sim-name-${side}" data-side="${side}" maxlength="60" value="${f.name}"></label>
      </div>
      <label class="check sim-dodge"><input type="checkbox" id="sim-dodge-${side}" data-side="${side}" ${dodge ? "checked" : ""}>
        ${t("sim_dodge")}</label>
      <p class="muted small sim-stats-line" id="sim-stats-${side}">${stats}</p>
      <details id="sim-sheet-box-${side}" ${f.preset === CUSTOM ? "open" : ""}>
        <summary>${t("sheet")}</summary>
        <textarea id="sim-sheet-${side}" data-side="${side}" rows="12" spellcheck="false"
          aria-describedby="sim-err-${side}">${f.sheet}</textarea>
      </details>
      <p class="field-error" id="sim-err-${side}" role="alert"></p>
    </fieldset>`;
}

function diceLine() {
  const dice = new Set(["1d20"]);
  for (const side of SIDES) {
    try {
      for (const w of parseSheet(sim.form[side].sheet).weapons || []) {
        if (w.dice && (w.kind || "melee") === "melee") dice.add(w.dice);  // NA-37: melee only
      }
    } catch { /* an unreadable sheet adds no dice */ }
  }
  return t("sim_dice", { dice: [...dice].join(", ") });
}

function pct(x) {
  return new Intl.NumberFormat(lang() === "fr" ? "fr-FR" : "en-US",
    { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(x);
}

function num(x) {
  return new Intl.NumberFormat(lang() === "fr" ? "fr-FR" : "en-US",
    { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(x);
}

function resultsView(r) {
  const row = (side) => {
    const rate = r.rates[side];
    return html`<tr data-side="${side}">
      <th scope="row">${r.names[side]}</th>
      <td class="num" id="sim-wins-${side}">${r.wins[side]}</td>
      <td class="num"><b id="sim-rate-${side}">${pct(rate.rate)}</b>
        <span class="ci-bar" aria-hidden="true"><span class="ci" style="left:${(100 * rate.low).toFixed(2)}%;width:${(100 * (rate.high - rate.low)).toFixed(2)}%"></span><span class="pt" style="left:${(100 * rate.rate).toFixed(2)}%"></span></span></td>
      <td class="num" id="sim-ci-${side}">${pct(rate.low)} – ${pct(rate.high)}</td>
    </tr>`;
  };
  const ex = r.example;
  const told = ex.winner ? t("sim_won", { name: r.names[ex.winner], rounds: ex.rounds }) : t("sim_drawn", { rounds: ex.rounds });
  return html`
    <h2 id="sim-results-title">${t("sim_outcome")}</h2>
    <p class="muted small">${t("sim_run", { n: r.fights, seed: r.seed })}</p>
    <div class="table-wrap"><table class="sim-table">
      <thead><tr><th scope="col">${t("sim_fighter")}</th><th scope="col">${t("sim_wins")}</th>
        <th scope="col">${t("sim_rate")}</th><th scope="col">${t("sim_ci")}</th></tr></thead>
      <tbody>${row("a")}${row("b")}${r.draws ? html`<tr><th scope="row">${t("sim_draws")}</th>
        <td class="num" id="sim-draws">${r.draws}</td><td class="num">${pct(r.draws / r.fights)}</td><td></td></tr>` : ""}</tbody>
    </table></div>
    <dl class="sim-facts">
      <div><dt>${t("sim_rounds")}</dt><dd id="sim-rounds">${t("sim_mean_sd", { mean: num(r.mean_rounds), sd: num(r.sd_rounds) })}</dd></div>
      <div><dt>${t("sim_damage")}</dt><dd id="sim-damage">${t("sim_mean", { mean: num(r.mean_damage_per_hit) })}</dd></div>
    </dl>
    <h3>${t("sim_charts")}</h3>
    ${simCharts(r)}
    <p class="sim-pin-row"><button type="button" id="sim-pin" class="secondary">${sim.kept ? t("unpin") : t("pin")}</button>
      ${sim.kept ? "" : html`<span class="muted small">${t("compare_hint")}</span>`}</p>
    ${sim.kept && sim.kept !== r ? html`<div id="sim-compare-box">${simCompare(sim.kept, r)}</div>` : ""}
    ${r.encounter ? html`<p id="sim-encounter" class="sim-saved">${r.encounter.saved ? t("sim_saved") : t("sim_already_saved")}
      <a href="${r.encounter.board}">${t("sim_board_link")}</a> <code class="small">${r.encounter.id}</code></p>` : ""}
    <h3>${t("sim_told")}</h3>
    <p id="sim-told-end"><b>${told}</b></p>
    <pre id="sim-narration" class="sim-pre" tabindex="0">${r.narration}</pre>
    <details id="sim-report-box">
      <summary>${t("sim_as_text")}</summary>
      <pre id="sim-report" class="sim-pre" tabindex="0">${r.report}</pre>
      <a id="sim-download" download="fracas-simulate-${r.seed}.txt" href="#">${t("sim_download")}</a>
    </details>`;
}

function view() {
  return html`
    <div class="sim">
      <section class="card" aria-labelledby="sim-title">
        <p class="war-back"><a href="/">← Fracas</a></p>
        <h1 id="sim-title">${t("sim_title")}</h1>
        <p class="muted small">${t("sim_hint")} <code class="rule">NA-37</code> <code class="rule">NA-39</code></p>
        <form id="sim-form" novalidate>
          <div class="sim-fighters">${fighterBox("a")}${fighterBox("b")}</div>
          <div class="grid-form sim-run">
            <label>${t("sim_fights")} <input id="sim-fights" type="number" min="1" max="2000" step="1" inputmode="numeric"
              required value="${sim.form.fights}"></label>
            <label>${t("sim_seed")} <input id="sim-seed" maxlength="64" value="${sim.form.seed}" placeholder="${t("sim_seed_hint")}"></label>
            <label class="check"><input type="checkbox" id="sim-save" ${sim.form.save ? "checked" : ""}> ${t("sim_save_encounter")}</label>
          </div>
          <div class="sim-buttons">
            <button type="button" id="sim-copy" class="secondary" ${sim.result ? "" : "disabled"}>${t("sim_save_text")}</button>
            <button type="submit" id="sim-start" ${sim.running ? "disabled" : ""}>${t("sim_start")}</button>
            <button type="button" id="sim-reset" class="secondary">${t("sim_reset")}</button>
          </div>
          <p id="sim-msg" class="form-msg" role="status" aria-live="polite"></p>
        </form>
      </section>
      <section id="sim-results" class="card" aria-labelledby="sim-results-title" ${sim.result ? "" : "hidden"}>
        ${sim.result ? resultsView(sim.result) : ""}</section>
      <p id="sim-dice" class="muted small sim-dice">${diceLine()}</p>
    </div>`;
}

function say(text, error = false) {
  sayIn($("#sim-msg"), text, error);
  if (!text) $("#sim-msg").className = "form-msg";
}

/** The inputs into `sim.form` (kept as typed: a broken sheet is not lost). */
function readForm() {
  if (!$("#sim-form")) return;
  for (const side of SIDES) {
    sim.form[side] = {
      preset: $(`#sim-preset-${side}`).value,
      name: $(`#sim-name-${side}`).value,
      sheet: $(`#sim-sheet-${side}`).value,
    };
  }
  sim.form.fights = $("#sim-fights").value;
  sim.form.seed = $("#sim-seed").value;
  sim.form.save = $("#sim-save").checked;
}

function refreshFighter(side) {
  const err = $(`#sim-err-${side}`);
  const area = $(`#sim-sheet-${side}`);
  try {
    const sheet = parseSheet(area.value);
    $(`#sim-dodge-${side}`).checked = Boolean(sheet.skills && sheet.skills.dodge);
    $(`#sim-stats-${side}`).textContent = statsLine(sheet);
    err.textContent = "";
    area.removeAttribute("aria-invalid");
    return sheet;
  } catch (e) {
    err.textContent = `${t("sheet")}: ${e.message}`;
    area.setAttribute("aria-invalid", "true");
    return null;
  } finally {
    readForm();
    $("#sim-dice").textContent = diceLine();
  }
}

function toCustom(side) {
  $(`#sim-preset-${side}`).value = CUSTOM;
  $(`#sim-sheet-box-${side}`).open = true;
}

/** A fighter as the API takes it: the preset's name when it is the preset as it is. */
function fighterBody(side) {
  const f = sim.form[side];
  const name = f.name.trim();
  if (f.preset !== CUSTOM) {
    return name && name !== cap(f.preset) ? { preset: f.preset, name } : f.preset;
  }
  const sheet = parseSheet(f.sheet);
  return name ? { ...sheet, name } : sheet;
}

function readBody() {
  readForm();
  const body = { ruleset: "d20-na", lang: lang() };
  for (const side of SIDES) {
    try {
      body[side] = fighterBody(side);
    } catch (e) {
      $(`#sim-err-${side}`).textContent = `${t("sheet")}: ${e.message}`;
      $(`#sim-sheet-box-${side}`).open = true;
      $(`#sim-sheet-${side}`).focus();
      return null;
    }
  }
  const fights = Number(sim.form.fights);
  const input = $("#sim-fights");
  if (!Number.isInteger(fights) || fights < 1 || fights > 2000) {
    input.setAttribute("aria-invalid", "true");
    say(t("sim_fights_range"), true);
    input.focus();
    return null;
  }
  input.removeAttribute("aria-invalid");
  body.fights = fights;
  if (sim.form.seed.trim()) body.seed = sim.form.seed.trim();
  if (sim.form.save) body.save = true;
  return body;
}

function showResult() {
  const box = $("#sim-results");
  if (sim.download) URL.revokeObjectURL(sim.download);
  sim.download = null;
  if (!sim.result) {
    box.hidden = true;
    box.innerHTML = "";
    $("#sim-copy").disabled = true;
    return;
  }
  box.innerHTML = String(resultsView(sim.result));
  box.hidden = false;
  $("#sim-pin").addEventListener("click", () => {
    sim.kept = sim.kept ? null : sim.result;
    showResult();
    $("#sim-pin").focus();
  });
  $("#sim-copy").disabled = false;
  sim.download = URL.createObjectURL(new Blob([`${sim.result.report}\n`], { type: "text/plain;charset=utf-8" }));
  $("#sim-download").href = sim.download;
}

async function run(body) {
  sim.running = true;
  $("#sim-start").disabled = true;
  $("#sim-start").setAttribute("aria-busy", "true");
  say(t("sim_running", { n: body.fights }));
  try {
    const answer = await request("POST", "/api/simulate", { body });
    sim.result = answer;
    sim.body = body;
    showResult();
    say(t("ok"));
    return true;
  } catch (err) {
    say(err.rule ? `${err.message} (${err.rule})` : err.message, true);
    return false;
  } finally {
    sim.running = false;
    const start = $("#sim-start");
    if (start) {
      start.disabled = false;
      start.removeAttribute("aria-busy");
    }
  }
}

function bind() {
  for (const side of SIDES) {
    $(`#sim-preset-${side}`).addEventListener("change", (e) => {
      const preset = e.target.value;
      const nameInput = $(`#sim-name-${side}`);
      const before = sim.form[side];
      if (preset === CUSTOM) {
        $(`#sim-sheet-box-${side}`).open = true;
      } else {
        $(`#sim-sheet-${side}`).value = pretty(sim.presets[preset]);
        $(`#sim-sheet-box-${side}`).open = false;
        const plain = !before.name.trim() || before.name === cap(before.preset) || before.name === t(`sim_fighter_${side}`);
        if (plain) nameInput.value = cap(preset);
      }
      refreshFighter(side);
    });
    $(`#sim-sheet-${side}`).addEventListener("input", () => {
      if ($(`#sim-preset-${side}`).value !== CUSTOM) toCustom(side);
      refreshFighter(side);
    });
    $(`#sim-dodge-${side}`).addEventListener("change", (e) => {
      const area = $(`#sim-sheet-${side}`);
      let sheet;
      try {
        sheet = parseSheet(area.value);
      } catch {
        e.target.checked = !e.target.checked;
        refreshFighter(side);
        return;
      }
      sheet.skills = { ...(sheet.skills || {}), dodge: e.target.checked };
      area.value = pretty(sheet);
      const preset = $(`#sim-preset-${side}`).value;
      if (preset === CUSTOM || pretty(sim.presets[preset]) !== area.value) toCustom(side);
      refreshFighter(side);
    });
    $(`#sim-name-${side}`).addEventListener("input", readForm);
  }
  for (const id of ["#sim-fights", "#sim-seed", "#sim-save"]) $(id).addEventListener("change", readForm);
  // An error said about the input goes once the input changes: it may be fixed now, and a
  // stale error would claim otherwise (the next run says again what is still wrong).
  const stale = () => {
    if ($("#sim-msg").classList.contains("error")) say("");
    $("#sim-fights").removeAttribute("aria-invalid");
  };
  $("#sim-form").addEventListener("input", stale);
  $("#sim-form").addEventListener("change", stale);
  $("#sim-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (sim.running) return;
    const body = readBody();
    if (!body) return;
    remember(sim.form);  // NA-38: the middle button also saves the stats entered
    await run(body);
  });
  $("#sim-reset").addEventListener("click", () => {
    sim.result = null;
    sim.body = null;
    showResult();
    say(t("sim_reset_done"));
  });
  $("#sim-copy").addEventListener("click", async () => {
    if (!sim.result) return;
    $("#sim-report-box").open = true;
    const ok = await copyText(sim.result.report);
    say(ok ? t("sim_copied") : t("sim_copy_failed"), !ok);
  });
}

function mount() {
  sim.main.innerHTML = String(view());
  bind();
  showResult();
  document.title = `${t("sim_title")} · Fracas`;
}

export async function simulatePage(main) {
  sim.main = main;
  let rulesets;
  try {
    rulesets = await api.rulesets();
  } catch (e) {
    main.innerHTML = `<p class="error card">${esc(e.message)}</p>`;
    return;
  }
  const rules = rulesets.find((r) => r.id === "d20-na");
  sim.presets = rules ? rules.presets : {};
  const saved = remembered();
  sim.form = saved ? { ...freshForm(), ...saved } : freshForm();
  mount();
}

/** After a language switch: the same inputs, and the same run told in the new language. */
export async function remountSimulate() {
  if (!sim.main || !sim.form) return;
  readForm();
  mount();
  if (sim.result && sim.body && !sim.running) {
    const body = { ...sim.body, lang: lang(), seed: sim.result.seed };
    delete body.save;
    const encounter = sim.result.encounter;
    if (await run(body) && encounter) {
      sim.result.encounter = encounter;
      showResult();
    }
  }
}
