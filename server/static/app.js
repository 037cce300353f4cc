// Fracas web UI: the home page, and per encounter the board, the GM console or the
// player controls, the roll audit and the history, kept live over the websocket.
import { api } from "./lib/api.js";
import { html, $, say } from "./lib/dom.js";
import { t, lang, setLang } from "./i18n/index.js";
import { Live } from "./lib/live.js";
import { boardShell, renderStatus, renderOrder, renderSides, renderLog, renderDice, LogBook } from "./encounter/board.js";
import { setupAudit, openAudit, refreshAudit, auditOpen } from "./encounter/audit.js";
import { gmShell, bindGm, renderGm } from "./encounter/gm.js";
import { playerShell, bindPlayer, renderPlayer } from "./encounter/player.js";
import { cardTools } from "./encounter/gm-tools.js";
import { home } from "./pages/home.js";
import { saved, save, keepGm } from "./lib/store.js";
import { foldSections } from "./lib/fold.js";
import { warPage, remountWar } from "./pages/war.js";
import { setBaseTitle, updateAlerts, mountAlertControls } from "./encounter/alerts.js";
import { simulatePage, remountSimulate } from "./pages/simulate.js";

const app = {
  id: null,
  token: null,
  role: "spectator",
  mine: [],
  rules: null,
  saved: { players: {} },
  board: null,
  viewAt: null,
  viewBoard: null,
  log: new LogBook(),
  logDone: false, // the log book holds the encounter's first line
  live: null,
  conn: "connecting",
  shown() { return this.viewAt !== null && this.viewBoard ? this.viewBoard : this.board; },
};

/** The GM's console or the player's controls again, from the board shown. */
app.redrawControls = () => {
  const b = app.shown();
  if (!b) return;
  if (app.role === "gm") renderGm(app, b);
  else if (app.role === "player") renderPlayer(app, b);
};

function parseHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  return { token: p.get("token"), role: p.get("role"), as: p.get("as") };
}

function setConn(state) {
  app.conn = state;
  const el = $("#conn");
  el.hidden = false;
  el.dataset.state = state;
  el.textContent = t(state);
  const controls = $("#controls");
  if (controls && state === "revoked_state") controls.disabled = true;
}

function setRoleBadge() {
  const el = $("#role-badge");
  el.hidden = false;
  el.dataset.role = app.role;
  el.textContent = t(app.role);
}

/** Post a command; show the server's refusal in `msgEl` (or let `onError` place it). */
app.send = async (body, msgEl, onError) => {
  const dice = $("#dice-input");
  if (app.role === "gm" && dice && dice.value.trim() && body.type !== "add_combatant") {
    const faces = dice.value.replace(/^\s*dice\s*:/i, "").split(/[\s,;]+/).filter(Boolean).map(Number);
    if (faces.some((f) => !Number.isInteger(f) || f < 1)) {
      say(msgEl, `dice: ${dice.value}?`, true);
      return null;
    }
    if (faces.length) body = { ...body, dice: faces };
  }
  try {
    const answer = await api.command(app.id, app.token, body);
    if (body.dice && dice) dice.value = "";
    say(msgEl, `${t("ok")} · ${t("version")} ${answer.version}`);
    if (!app.live || !app.live.connected) refresh();
    return answer;
  } catch (err) {
    if (!(onError && onError(err))) say(msgEl, err.rule ? `${err.message} (${err.rule})` : err.message, true);
    return null;
  }
};

app.rememberPlayer = (cid, name, token) => {
  const players = { ...app.saved.players, [cid]: { name, token } };
  app.saved = save(app.id, { players });
  if (app.board) renderGm(app, app.shown());
};

async function refresh() {
  try {
    applyBoard(await api.board(app.id, app.token));
  } catch { /* the live feed catches up when it reconnects */ }
}

function applyBoard(b) {
  const prev = app.board;
  if (prev && b.version <= prev.version) return;
  app.board = b;
  app.log.merge(b.log);
  if (app.live && b.version > app.live.version) app.live.version = b.version;
  if (app.viewAt === null) render();
  else renderHistoryBar();
  updateAlerts(app, b);
  const changed = !prev || prev.dice.revealed.length !== b.dice.revealed.length
    || prev.disputes.length !== b.disputes.length;
  if (changed && auditOpen() !== null) refreshAudit();
}

function render() {
  const b = app.shown();
  if (!b) return;
  renderStatus(b);
  renderOrder(b);
  renderSides(b, app.role === "gm" ? (c) => cardTools(app, b, c) : null);
  renderLog(app.log.lines(app.viewAt ?? Infinity), b.undone);
  loadDice();
  if (app.role === "gm") renderGm(app, b);
  if (app.role === "player") renderPlayer(app, b);
  const controls = $("#controls");
  if (controls) controls.disabled = app.viewAt !== null;
  renderHistoryBar();
}

// The dice card is fetched at most once per second, and only when the board moved.
let diceAt = -1;
let diceTimer = null;
function loadDice() {
  const v = app.board ? app.board.version : 0;
  if (v === diceAt) {
    if (app.diceStats) renderDice(app.diceStats);
    return;
  }
  if (diceTimer) return;
  diceTimer = setTimeout(async () => {
    diceTimer = null;
    const at = app.board.version;
    try {
      app.diceStats = await api.dice(app.id, app.token);
      diceAt = at;
      renderDice(app.diceStats);
    } catch { /* the next board update tries again */ }
    if (app.board.version !== at) loadDice();
  }, diceAt < 0 ? 0 : 400);
}

function renderHistoryBar() {
  const live = app.board.version;
  const at = app.viewAt;
  $("#hist-back").disabled = stepBack() === null;
  $("#hist-forward").disabled = at === null;
  $("#hist-live").hidden = at === null;
  const state = $("#hist-state");
  state.textContent = at === null ? t("live_at", { v: live }) : t("viewing", { v: at });
  state.dataset.mode = at === null ? "live" : "history";
  document.body.classList.toggle("history-mode", at !== null);
  $("#hist-note").hidden = at === null;
  const input = $("#hist-version");
  input.max = String(live);
  if (document.activeElement !== input) input.value = String(at ?? live);
}

// The history bar moves by whole steps (one command's events): back goes where "undo
// last step" would (the shown board's `step_back`), forward retraces those steps and
// then goes live. A version typed in is shown as it is.
const trail = [];
function stepBack() {
  const b = app.shown();
  return b && b.step_back != null && b.step_back >= 1 ? b.step_back : null;
}

function stepBackward() {
  const v = stepBack();
  if (v === null) return;
  trail.push(app.viewAt);
  goTo(v, true);
}

function stepForward() {
  const v = trail.pop();
  if (v === undefined || v === null) goLive();
  else goTo(v, true);
}

async function goTo(v, stepping = false) {
  if (!stepping) trail.length = 0;
  const live = app.board.version;
  if (!Number.isFinite(v)) return;
  if (v >= live) {
    goLive();
    return;
  }
  v = Math.max(1, Math.floor(v));
  try {
    const b = await api.board(app.id, app.token, v);
    app.log.merge(b.log);
    app.viewAt = v;
    app.viewBoard = b;
    render();
  } catch (err) {
    $("#hist-state").textContent = err.message;
  }
}

// The board carries the last lines of the log; older ones are paged from the server
// (GET /api/encounters/{id}/log), kept in the log book and shown above, in place.
async function loadEarlier() {
  const btn = $("#log-earlier");
  // The board's tail may hold only the last lines of its first version: page from just
  // after it, so that version comes back whole (a page never splits a version).
  const first = app.log.lines()[0];
  const before = (first ? first.version : app.board.version) + 1;
  btn.disabled = true;
  try {
    const page = await api.log(app.id, app.token, before);
    app.log.merge(page.lines);
    app.logDone = !page.more;
    const ol = $("#log");
    const below = ol.scrollHeight - ol.scrollTop;
    render();
    ol.scrollTop = ol.scrollHeight - below; // the lines read before stay where they were
  } catch { /* the button stays for another try */ }
  btn.disabled = false;
  btn.hidden = app.logDone;
}

function goLive() {
  trail.length = 0;
  app.viewAt = null;
  app.viewBoard = null;
  render();
}

function historyBar() {
  return html`
    <nav class="history card" aria-label="${t("history")}">
      <button type="button" id="hist-back" class="ghost">${t("back")}</button>
      <button type="button" id="hist-forward" class="ghost">${t("forward")}</button>
      <form id="hist-form" class="hist-form">
        <label for="hist-version" class="sr-only">${t("go_version")}</label>
        <input id="hist-version" type="number" min="1" inputmode="numeric">
        <button type="submit" class="ghost">${t("go")}</button>
      </form>
      <span id="hist-state" role="status" aria-live="polite"></span>
      <button type="button" id="hist-live" hidden>${t("back_to_live")}</button>
      <p id="hist-note" class="muted small" hidden>${t("history_mode")}</p>
    </nav>`;
}

function mount() {
  const main = $("#main");
  let side = "";
  if (app.role === "gm") side = html`<aside class="side-col" aria-label="${t("gm")}"><fieldset id="controls">${gmShell(app)}</fieldset></aside>`;
  else if (app.role === "player") side = html`<aside class="side-col" aria-label="${t("your_controls")}"><fieldset id="controls">${playerShell()}</fieldset></aside>`;
  main.innerHTML = String(html`
    <div class="layout ${side ? app.role : "solo"}">
      <div class="board-col">${historyBar()}${boardShell()}</div>
      ${side}
    </div>`);
  foldSections(main);
  // A log opened from its fold shows its last lines, as it does live.
  $("#log-card details").addEventListener("toggle", (e) => {
    if (e.target.open) $("#log").scrollTop = $("#log").scrollHeight;
  });
  $("#hist-back").addEventListener("click", stepBackward);
  $("#hist-forward").addEventListener("click", stepForward);
  $("#hist-live").addEventListener("click", goLive);
  $("#hist-form").addEventListener("submit", (e) => {
    e.preventDefault();
    goTo(Number($("#hist-version").value));
  });
  const earlier = $("#log-earlier");
  earlier.hidden = app.logDone;
  earlier.addEventListener("click", loadEarlier);
  $("#log").addEventListener("scroll", (e) => {
    if (e.target.scrollTop === 0 && !app.logDone && !earlier.disabled) loadEarlier();
  });
  $("#log").addEventListener("click", (e) => {
    const btn = e.target.closest("button[data-roll]");
    if (btn) openAudit(Number(btn.dataset.roll), btn);
  });
  if (app.role === "gm") bindGm(app);
  if (app.role === "player") bindPlayer(app);
  if (app.conn) setConn(app.conn);
  setRoleBadge();
  mountAlertControls(app);
  render();
  updateAlerts(app, app.board);
}

async function decideRole(id, hash, board) {
  const mem = saved(id);
  if (hash.token && hash.token === mem.gm) return "gm";
  if (hash.as) return "player";
  if (!hash.token || hash.token === mem.spectator) return "spectator";
  // What the link says (`role=gm`) is not what the token gives: ask the server, and
  // never let a link replace the GM token this browser keeps without asking.
  try {
    const me = await api.me(id, hash.token);
    if (me.role === "gm") {
      keepGm(id, hash.token, { name: board.encounter.name, ruleset: board.encounter.ruleset });
      return "gm";
    }
    if (me.role === "player") {
      hash.as = me.combatants.join(",");
      return "player";
    }
    return "spectator";
  } catch {
    return "spectator";
  }
}

async function encounterPage(id) {
  const hash = parseHash();
  const mem = saved(id);
  app.id = id;
  app.token = hash.token || mem.gm || mem.spectator || null;
  if (!hash.token && mem.gm) hash.role = "gm";
  hash.token = app.token;
  let board;
  let rulesets;
  try {
    [board, rulesets] = await Promise.all([api.board(id, app.token), api.rulesets()]);
  } catch (err) {
    // A token the server no longer knows (revoked by the GM): say so, not "not found".
    const gone = err.status === 401 && app.token;
    $("#main").innerHTML = String(gone
      ? html`<p class="error card" id="revoked">${t("revoked")}</p>`
      : html`<p class="error card">${t("not_found")} (${err.message})</p>`);
    if (gone) setConn("revoked_state");
    return;
  }
  app.role = await decideRole(id, hash, board);
  app.mine = hash.as ? hash.as.split(",").filter(Boolean) : [];
  app.saved = saved(id);
  app.rules = rulesets.find((r) => r.id === board.encounter.ruleset)
    || { actions: {}, reactions: {}, presets: {}, settings: {} };
  document.title = `${board.encounter.name} · Fracas`;
  setBaseTitle(document.title);
  setupAudit({
    id,
    token: app.token,
    canDispute: () => app.role !== "spectator",
    onDisputed: () => { if (!app.live || !app.live.connected) refresh(); },
  });
  app.board = board;
  app.log.merge(board.log);
  app.logDone = board.log.length > 0 && board.log[0].version === 1; // nothing before "opened"
  mount();
  app.live = new Live({ id, token: app.token, onBoard: applyBoard, onState: setConn, patch: true });
  app.live.start(board.version);
  // /e/<id>?roll=N: the link an export gives each roll opens that roll's audit.
  const linked = Number(new URLSearchParams(location.search).get("roll"));
  if (Number.isInteger(linked) && linked > 0) openAudit(linked);
}

function setupLang() {
  const btn = $("#lang-toggle");
  const paint = () => {
    btn.textContent = t("lang_switch");
    btn.lang = lang() === "fr" ? "en" : "fr";
    document.documentElement.lang = lang();
  };
  paint();
  btn.addEventListener("click", () => {
    setLang(lang() === "fr" ? "en" : "fr");
    paint();
    if (app.id && app.board) {
      mount();
      if (auditOpen() !== null) openAudit(auditOpen());
    } else if (app.war) {
      remountWar();
    } else if (app.simulate) {
      remountSimulate();
    } else if (!app.id) {
      home($("#main"));
    }
  });
}

function main() {
  setupLang();
  const m = location.pathname.match(/^\/e\/([0-9a-fA-F-]{36})\/?$/);
  const w = location.pathname.match(/^\/w\/([0-9a-fA-F-]{36})\/?$/);
  if (m) encounterPage(m[1].toLowerCase());
  else if (w) {
    app.war = w[1].toLowerCase();
    warPage(app.war);
  } else if (/^\/simulate\/?$/.test(location.pathname)) {
    app.simulate = true;
    simulatePage($("#main"));
  } else home($("#main"));
  window.addEventListener("hashchange", () => location.reload());
}

main();
