// What this browser remembers per encounter (localStorage): GM and spectator tokens,
// and the player links the GM made.
const PREFIX = "fracas:enc:";

export function saved(id) {
  try {
    const raw = localStorage.getItem(PREFIX + id);
    const obj = raw ? JSON.parse(raw) : {};
    return { players: {}, ...obj };
  } catch {
    return { players: {} };
  }
}

export function save(id, patch) {
  const next = { ...saved(id), ...patch };
  try { localStorage.setItem(PREFIX + id, JSON.stringify(next)); } catch { /* storage may be off */ }
  return next;
}

export function known() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k && k.startsWith(PREFIX)) {
        const v = JSON.parse(localStorage.getItem(k));
        if (v.gm) out.push({ id: k.slice(PREFIX.length), ...v });
      }
    }
  } catch { /* storage may be off */ }
  return out.sort((a, b) => (b.created || 0) - (a.created || 0)).slice(0, 10);
}
