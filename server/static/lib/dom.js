// Tiny helpers: escaped HTML templates, and patching that leaves unchanged nodes alone
// (so a re-render keeps focus and typed text where nothing changed).
class Raw {
  constructor(s) { this.s = s; }
  toString() { return this.s; }
}

export const raw = (s) => new Raw(s);

export function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]
  ));
}

function fmt(v) {
  if (v instanceof Raw) return v.s;
  if (Array.isArray(v)) return v.map(fmt).join("");
  if (v === null || v === undefined || v === false) return "";
  return esc(v);
}

export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((v, i) => { out += fmt(v) + strings[i + 1]; });
  return new Raw(out);
}

export function patch(el, content) {
  if (!el) return;
  const s = Array.isArray(content) ? content.map(String).join("") : String(content);
  if (el.dataset.rendered !== undefined && el._rendered === s) return;
  el._rendered = s;
  el.dataset.rendered = "";
  el.innerHTML = s;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/** Replace a <select>'s options, keeping the chosen value when it is still offered. */
export function setOptions(select, options) {
  const keep = select.value;
  const s = options.map(([value, label]) => `<option value="${esc(value)}">${esc(label)}</option>`).join("");
  if (select._opts !== s) {
    select._opts = s;
    select.innerHTML = s;
    if (options.some(([v]) => String(v) === keep)) select.value = keep;
  }
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

/** A form's message line: what happened, or what went wrong (`error`). */
export function say(el, text, error = false) {
  if (!el) return;
  el.textContent = text;
  el.className = `form-msg ${error ? "error" : "ok"}`;
}
