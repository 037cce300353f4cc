// The HTTP API (CONTRACT section 3). Errors carry the server's code and message (its
// French wording on a French page).
import { lang } from "./i18n.js";
export class ApiError extends Error {
  constructor(status, code, message, rule) {
    super(message);
    this.status = status;
    this.code = code;
    this.rule = rule;
  }
}

function key() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

export async function request(method, path, { token, body, text, idempotent } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (idempotent) headers["Idempotency-Key"] = key();
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network", lang() === "fr" ? "le serveur est injoignable"
      : "the server cannot be reached");
  }
  if (!res.ok) {
    let err = {};
    try { err = (await res.json()).error || {}; } catch { err = {}; }
    const said = (lang() === "fr" && err.message_fr) || err.message || res.statusText;
    throw new ApiError(res.status, err.code || "http", said, err.rule);
  }
  return text ? res.text() : res.json();
}

export const api = {
  rulesets: () => request("GET", "/api/rulesets"),
  create: (body) => request("POST", "/api/encounters", { body }),
  board: (id, token, at) =>
    request("GET", `/api/encounters/${id}${at != null ? `?at=${at}` : ""}`, { token }),
  command: (id, token, body) =>
    request("POST", `/api/encounters/${id}/commands`, { token, body, idempotent: true }),
  roll: (id, token, n) => request("GET", `/api/encounters/${id}/rolls/${n}`, { token }),
  exportText: (id, token, format, { scope = "all", lang = "en", include_hidden = false } = {}) =>
    request("GET", `/api/encounters/${id}/export?format=${format}&scope=${scope}&lang=${lang}`
      + `&include_hidden=${include_hidden ? "true" : "false"}`, { token, text: true }),
  dice: (id, token) => request("GET", `/api/encounters/${id}/dice`, { token }),
  warDice: (id, token) => request("GET", `/api/campaigns/${id}/dice`, { token }),
  me: (id, token) => request("GET", `/api/encounters/${id}/me`, { token }),
};
