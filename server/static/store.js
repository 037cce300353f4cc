// What this browser remembers (localStorage), per encounter (GM and spectator tokens,
// the player links the GM made) and per War (its GM token): one keyed store per kind.
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
