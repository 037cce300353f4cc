// The live feed: WS /ws/encounters/{id}?after=V (or /ws/campaigns/{id} for a War,
// `kind: "campaigns"`) with reconnect (backoff) and resume. The token rides in the
// Sec-WebSocket-Protocol header (`fracas`, `bearer.<token>`), never in the URL: URLs
// are written to access logs.
// Boards are applied only when their version is newer, so a resumed feed never repeats.
// With `patch`, updates carry an RFC 6902 patch from the last board this connection
// received (the first message of each connection carries a whole board).
import { applyPatch } from "./patch.js";

export class Live {
  constructor({ id, token, onBoard, onState, kind = "encounters", patch = false }) {
    Object.assign(this, { id, token, onBoard, onState, kind, patch });
    this.last = null; // the last board received on the current connection
    this.version = 0;
    this.delay = 250;
    this.stopped = false;
    this.connectedOnce = false;
  }

  start(version = 0) {
    this.version = version;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000);
  }

  connect() {
    if (this.stopped) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const q = new URLSearchParams();
    if (this.version) q.set("after", String(this.version));
    if (this.patch) q.set("patch", "1");
    this.last = null;
    this.onState(this.connectedOnce ? "reconnecting" : "connecting");
    let ws;
    try {
      const protocols = this.token ? ["fracas", `bearer.${this.token}`] : ["fracas"];
      ws = new WebSocket(`${proto}://${location.host}/ws/${this.kind}/${this.id}?${q}`, protocols);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 250;
      this.connectedOnce = true;
      this.onState("connected");
      this.pinger = setInterval(() => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
      }, 20000);
    };
    ws.onmessage = (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type !== "snapshot" && msg.type !== "update") return;
      let board = msg.board;
      if (!board && msg.patch) {
        try {
          board = applyPatch(this.last, msg.patch);
        } catch {
          ws.close(4000); // out of step: reconnect, resume with `after` and a whole board
          return;
        }
      }
      if (!board) return;
      this.last = board;
      if (msg.version > this.version) {
        this.version = msg.version;
        this.onBoard(board, msg);
      }
    };
    ws.onerror = () => { /* onclose follows and schedules the retry */ };
    ws.onclose = (e) => {
      clearInterval(this.pinger);
      if (this.ws !== ws || this.stopped) return;
      if (e.code === 4401) {
        this.onState("revoked_state"); // the token is not (or no longer) valid
        return;
      }
      if (e.code === 4404 || e.code === 4400) {
        this.onState("refused");
        return;
      }
      this.retry();
    };
  }

  retry() {
    this.onState(this.connectedOnce ? "reconnecting" : "connecting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, 2000);
  }

  get connected() {
    return this.ws && this.ws.readyState === WebSocket.OPEN;
  }
}
