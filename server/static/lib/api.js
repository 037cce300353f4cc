// The HTTP API (CONTRACT section 3). Errors carry the server's code and message (its
// French wording on a French page).
//
// While the server or its database is out of reach (a network error, or 503
// `unavailable` with Retry-After), reads and keyed commands are sent again after the
// wait the server asks for, with the same Idempotency-Key, so a command that did land
// is answered, not applied twice; a banner says "reconnecting" meanwhile, as the live
// feed does. Other writes (creations, War commands) are not repeated behind the user's
// back: their error says to try again.
import { t, lang } from "../i18n/index.js";

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

const RETRIES = 40; // bounded: about a minute and a half at the server's Retry-After
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
let waiting = 0; // requests now waiting for the server

function banner(delta) {
  waiting += delta;
  let el = document.getElementById("reconnecting");
  if (!el) {
    el = document.createElement("div");
    el.id = "reconnecting";
    el.className = "reconnecting";
    el.setAttribute("role", "status");
    el.setAttribute("aria-live", "polite");
    document.body.append(el);
  }
  el.textContent = t("server_waiting");
  el.hidden = waiting <= 0;
}

function retryAfter(res, attempt) {
  const s = Number(res && res.headers.get("Retry-After"));
  if (Number.isFinite(s) && s > 0) return Math.min(s, 30) * 1000;
  return Math.min(250 * 2 ** attempt, 2000); // no answer at all: back off as the live feed does
}

export async function request(method, path, { token, body, text, idempotent } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (idempotent) headers["Idempotency-Key"] = key(); // one key for every retry below
  const retryable = method === "GET" || idempotent;
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  let shown = false;
  try {
    for (let attempt = 0; ; attempt += 1) {
      let res = null;
      try { res = await fetch(path, init); } catch { res = null; }
      const down = res === null || res.status === 503;
      if (down && retryable && attempt < RETRIES) {
        if (!shown) { shown = true; banner(1); }
        await sleep(retryAfter(res, attempt));
        continue;
      }
      if (res === null) throw new ApiError(0, "network", t("unreachable"));
      if (!res.ok) {
        let err = {};
        try { err = (await res.json()).error || {}; } catch { err = {}; }
        const code = err.code || "http";
        let message = (lang() === "fr" && err.message_fr) || err.message || res.statusText;
        if (code === "unavailable") message = t("unavailable");
        if (code === "rate_limited") message = t("rate_limited", { s: res.headers.get("Retry-After") || "60" });
        throw new ApiError(res.status, code, message, err.rule);
      }
      return text ? res.text() : res.json();
    }
  } finally {
    if (shown) banner(-1);
  }
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
  verify: (id, token) => request("GET", `/api/encounters/${id}/verify`, { token }),
  log: (id, token, before, limit = 50) =>
    request("GET", `/api/encounters/${id}/log?before=${before}&limit=${limit}`, { token }),
  dice: (id, token) => request("GET", `/api/encounters/${id}/dice`, { token }),
  sheets: (id, token) => request("GET", `/api/encounters/${id}/sheet`, { token }),
  warDice: (id, token) => request("GET", `/api/campaigns/${id}/dice`, { token }),
  me: (id, token) => request("GET", `/api/encounters/${id}/me`, { token }),
  tokens: (id, token) => request("GET", `/api/encounters/${id}/tokens`, { token }),
  issueToken: (id, token, body) => request("POST", `/api/encounters/${id}/tokens`, { token, body }),
  revokeToken: (id, token, tokenId) => request("DELETE", `/api/encounters/${id}/tokens/${tokenId}`, { token }),
  webhook: (id, token) => request("GET", `/api/encounters/${id}/webhook`, { token }),
  setWebhook: (id, token, body) => request("PUT", `/api/encounters/${id}/webhook`, { token, body }),
  deleteWebhook: (id, token) => request("DELETE", `/api/encounters/${id}/webhook`, { token }),
  webhookDeliveries: (id, token, limit) =>
    request("GET", `/api/encounters/${id}/webhook/deliveries?limit=${limit}`, { token }),
  testWebhook: (id, token) => request("POST", `/api/encounters/${id}/webhook/test`, { token }),
};

/** The War's calls (a campaign: its page and the home page's list). */
export const warApi = {
  create: (body) => request("POST", "/api/campaigns", { body }),
  get: (id, token) => request("GET", `/api/campaigns/${id}`, { token }),
  command: (id, token, body) => request("POST", `/api/campaigns/${id}/commands`, { token, body }),
  openEncounter: (token, body) => request("POST", "/api/encounters", { token, body }),
};
