// Alerts when the table waits for you: a mark in the page title (always), a short beep
// (off by default, remembered per browser) and a browser notification (only once the
// user allowed them from the button; nothing is asked on page load). A player is
// alerted for their combatants, the GM for the NPCs (no controller, or "gm") and for a
// new dispute. Sound and notification fire when an alert starts, the title holds it.
import { t } from "../i18n/index.js";
import { html, $ } from "../lib/dom.js";

const SOUND = "fracas:sound";
const NOTIFY = "fracas:notify";
const state = { base: "Fracas", key: "", disputes: null, disputeMark: false, audio: null };

function pref(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

function setPref(key, value) {
  try { localStorage.setItem(key, value); } catch { /* storage may be off */ }
}

export function setBaseTitle(title) {
  state.base = title;
}

const notifications = () => "Notification" in window;
const notifyOn = () => notifications() && Notification.permission === "granted" && pref(NOTIFY) === "on";

function isNpc(c) {
  return !c.controller || String(c.controller).toLowerCase() === "gm";
}

/** What waits for this page's user now: {key, label, body} or null. */
function waiting(app, b) {
  if (!b || b.encounter.closed) return null;
  let mine;
  if (app.role === "player") mine = new Set(app.mine);
  else if (app.role === "gm") mine = new Set(b.combatants.filter(isNpc).map((c) => c.id));
  else return null;
  const names = Object.fromEntries(b.combatants.map((c) => [c.id, c.name]));
  const attack = b.pending.find((p) => mine.has(p.target));
  if (attack) return { key: `react:${attack.id}`, label: t("alert_defend"), body: t("defend", { name: attack.target_name }) };
  if (b.started && b.actor && mine.has(b.actor)) {
    return { key: `turn:${b.round}:${b.actor}`, turn: `${b.round}:${b.actor}`, label: t("alert_turn"), body: t("your_turn", { name: names[b.actor] }) };
  }
  if (app.role === "gm" && state.disputeMark) return { key: "dispute", label: t("alert_dispute"), body: t("alert_dispute") };
  return null;
}

function beep() {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    state.audio = state.audio || new Ctx();
    const osc = state.audio.createOscillator();
    const gain = state.audio.createGain();
    osc.frequency.value = 880;
    gain.gain.value = 0.08;
    osc.connect(gain).connect(state.audio.destination);
    osc.start();
    osc.stop(state.audio.currentTime + 0.15);
  } catch { /* no audio here */ }
}

function notify(w) {
  if (!notifyOn()) return;
  try {
    new Notification(`${w.label} - Fracas`, { body: w.body, tag: "fracas-alert" });
  } catch { /* some browsers only notify from a service worker */ }
}

/** Called after every board change (the live board, not a page of history). */
export function updateAlerts(app, b) {
  if (!b) return;
  if (app.role === "gm") {
    if (state.disputes !== null && b.disputes.length > state.disputes) state.disputeMark = true;
    state.disputes = b.disputes.length;
  }
  const w = waiting(app, b);
  document.title = w ? `(!) ${w.label} - Fracas` : state.base;
  // A turn that goes on across several updates is one alert: key on the actor's turn start.
  const key = w ? (w.turn ? `turn:${w.turn}` : w.key) : "";
  if (key && key !== state.key) {
    if (pref(SOUND) === "on") beep();
    notify(w);
  }
  state.key = key;
}

function clearDispute(app) {
  if (!state.disputeMark) return;
  state.disputeMark = false;
  updateAlerts(app, app.board);
}

function paint() {
  const sound = $("#sound-toggle");
  if (sound) {
    const on = pref(SOUND) === "on";
    sound.setAttribute("aria-pressed", String(on));
    sound.textContent = on ? t("sound_on") : t("sound_off");
  }
  const btn = $("#notify-btn");
  if (!btn) return;
  btn.hidden = !notifications();
  if (!notifications()) return;
  const perm = Notification.permission;
  btn.disabled = perm === "denied";
  btn.dataset.state = perm === "denied" ? "blocked" : notifyOn() ? "on" : "off";
  btn.textContent = perm === "denied" ? t("notify_blocked") : notifyOn() ? t("notify_on") : t("notify_allow");
}

/** The sound toggle and the notification button, in the page header. */
export function mountAlertControls(app) {
  const old = $("#alert-controls");
  if (old) old.remove();
  if (app.role !== "gm" && app.role !== "player") return;
  const box = document.createElement("span");
  box.id = "alert-controls";
  box.className = "alert-controls";
  box.innerHTML = String(html`<button type="button" id="sound-toggle" class="ghost" aria-pressed="false"></button>
    <button type="button" id="notify-btn" class="ghost" hidden></button>`);
  $("#lang-toggle").before(box);
  $("#sound-toggle").addEventListener("click", () => {
    const on = pref(SOUND) !== "on";
    setPref(SOUND, on ? "on" : "off");
    if (on) beep(); // a user gesture: lets the audio context start
    paint();
  });
  $("#notify-btn").addEventListener("click", async () => {
    if (notifyOn()) {
      setPref(NOTIFY, "off");
    } else {
      const perm = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
      if (perm === "granted") setPref(NOTIFY, "on");
    }
    paint();
  });
  if (!state.listening) {
    state.listening = true;
    for (const ev of ["focus", "click", "keydown"]) window.addEventListener(ev, () => clearDispute(app));
  }
  paint();
}
