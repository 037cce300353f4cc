// What this browser remembers (localStorage), per encounter (GM and spectator tokens,
// the player links the GM made) and per War (its GM token): one keyed store per kind;
// and the GM's library of sheets.
// A kept GM token is never replaced by another one without asking (a link anyone can
// send must not lock the GM out), and an import only adds what this browser lacks.
import { lang } from "../i18n/index.js";

function keyed(prefix, defaults) {
  function saved(id) {
    try {
      const raw = localStorage.getItem(prefix + id);
      return { ...defaults(), ...(raw ? JSON.parse(raw) : {}) };
    } catch {
      return defaults();
    }
  }

  function save(id, patch) {
    const next = { ...saved(id), ...patch };
    try { localStorage.setItem(prefix + id, JSON.stringify(next)); } catch { /* storage may be off */ }
    return next;
  }

  // The ten most recent this browser holds a GM token for.
  function known() {
    const out = [];
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const k = localStorage.key(i);
        if (k && k.startsWith(prefix)) {
          const v = JSON.parse(localStorage.getItem(k));
          if (v.gm) out.push({ id: k.slice(prefix.length), ...v });
        }
      }
    } catch { /* storage may be off */ }
    return out.sort((a, b) => (b.created || 0) - (a.created || 0)).slice(0, 10);
  }

  return { saved, save, known };
}

const encounters = keyed("fracas:enc:", () => ({ players: {} }));
export const { saved, save, known } = encounters;

const wars = keyed("fracas:war:", () => ({}));
export const { saved: warSaved, save: warSave, known: knownWars } = wars;

function mayReplace(name) {
  const question = lang() === "fr"
    ? `Ce navigateur garde déjà un autre lien de MJ pour « ${name} ». Le remplacer par celui de cette adresse ?`
    : `This browser already keeps another GM link for "${name}". Replace it with the one in this address?`;
  try { return window.confirm(question); } catch { return false; }
}

function keepGmIn(store, id, token, patch) {
  const mem = store.saved(id);
  if (mem.gm === token) return true;
  if (mem.gm && !mayReplace(mem.name || patch.name || id)) return false;
  store.save(id, { ...patch, gm: token, created: mem.created || Date.now() });
  return true;
}

/** Keep `token` (checked by the server as a GM token) as this browser's GM token for
 * encounter `id`, with `patch` (name, ruleset); asks before replacing another one.
 * Answers whether it is kept. */
export function keepGm(id, token, patch) { return keepGmIn(encounters, id, token, patch); }

/** The same for a War's GM token. */
export function keepWarGm(id, token, patch) { return keepGmIn(wars, id, token, patch); }

// The library of sheets: combatants the GM keeps to add again in one click, in any
// encounter of the same rule system. One list under one key; each entry is
// {id, name, ruleset, side, sheet, hidden, maxima, saved}. (In a War the War's
// characters are the library: its page opens encounters with them.)
const LIBRARY = "fracas:library";
const LIBRARY_MAX = 200;

function libraryAll() {
  try {
    const raw = JSON.parse(localStorage.getItem(LIBRARY) || "[]");
    return Array.isArray(raw) ? raw.filter(isEntry) : [];
  } catch {
    return [];
  }
}

function isEntry(e) {
  return Boolean(e && typeof e === "object" && typeof e.id === "string" && typeof e.name === "string"
    && typeof e.ruleset === "string" && e.sheet && typeof e.sheet === "object" && !Array.isArray(e.sheet));
}

function libraryPut(list) {
  try { localStorage.setItem(LIBRARY, JSON.stringify(list.slice(0, LIBRARY_MAX))); } catch { /* storage may be off */ }
}

/** The library's entries for `ruleset`, by name. */
export function library(ruleset) {
  return libraryAll().filter((e) => e.ruleset === ruleset).sort((a, b) => a.name.localeCompare(b.name));
}

/** Keep a sheet in the library; an entry of the same name and rule system is replaced.
 * Answers the entry kept. */
export function libraryKeep({ name, ruleset, side, sheet, hidden, maxima }) {
  const list = libraryAll();
  const same = list.find((e) => e.ruleset === ruleset && e.name === name);
  const entry = { id: same ? same.id : `l${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
    name, ruleset, side, sheet, hidden: hidden || [], maxima: maxima || {}, saved: Date.now() };
  libraryPut([entry, ...list.filter((e) => e.id !== entry.id)]);
  return entry;
}

/** Whether the library holds any entry (the home page offers to carry it). */
export function hasLibrary() { return libraryAll().length > 0; }

export function libraryRename(id, name) {
  libraryPut(libraryAll().map((e) => (e.id === id ? { ...e, name } : e)));
}

export function libraryDelete(id) {
  libraryPut(libraryAll().filter((e) => e.id !== id));
}

// Carrying this browser's list to another device: every encounter and War entry, as one
// object (a file, or a link whose #import= fragment never reaches the server).
const FORMAT = "fracas-browser/1";

export function exportAll() {
  const out = { format: FORMAT, encounters: {}, wars: {}, library: libraryAll() };
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k.startsWith("fracas:enc:")) out.encounters[k.slice(11)] = JSON.parse(localStorage.getItem(k));
      else if (k.startsWith("fracas:war:")) out.wars[k.slice(11)] = JSON.parse(localStorage.getItem(k));
    }
  } catch { /* storage may be off */ }
  return out;
}

/** Merge an export into this browser: it adds what this browser lacks (an encounter,
 * a War, a token, a player link) and never overwrites what it holds (a GM token above
 * all). Answers the counts, or null if it is not one. */
export function importAll(data) {
  if (!data || data.format !== FORMAT) return null;
  const ids = (o) => Object.keys(o || {}).filter((id) => /^[0-9a-f-]{36}$/.test(id));
  const enc = ids(data.encounters);
  const war = ids(data.wars);
  const entry = (o) => (o && typeof o === "object" && !Array.isArray(o) ? o : {});
  for (const id of enc) {
    const mine = saved(id);
    const theirs = entry(data.encounters[id]);
    save(id, { ...theirs, ...mine, players: { ...entry(theirs.players), ...mine.players } });
  }
  for (const id of war) warSave(id, { ...entry(data.wars[id]), ...warSaved(id) });
  // Library entries this browser lacks (by id) join it; its own are kept as they are.
  const mine = libraryAll();
  const have = new Set(mine.map((e) => e.id));
  const added = (Array.isArray(data.library) ? data.library : []).filter((e) => isEntry(e) && !have.has(e.id));
  if (added.length) libraryPut([...mine, ...added]);
  return { enc: enc.length, war: war.length, lib: added.length };
}

export function encodeExport(obj) {
  const bytes = new TextEncoder().encode(JSON.stringify(obj));
  let bin = "";
  bytes.forEach((b) => { bin += String.fromCharCode(b); });
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeExport(text) {
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    return null;
  }
}

// Which sections of the page are folded, per section id (the same on every encounter:
// a GM who folds the webhook card on a phone wants it folded in the next fight too).
const FOLD = "fracas:fold:";

/** Whether section `id` was left folded (true), open (false), or never touched (null). */
export function folded(id) {
  try {
    const v = localStorage.getItem(FOLD + id);
    return v === null ? null : v === "1";
  } catch {
    return null;
  }
}

export function keepFolded(id, shut) {
  try { localStorage.setItem(FOLD + id, shut ? "1" : "0"); } catch { /* storage may be off */ }
}
