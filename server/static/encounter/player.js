// The player's controls: their combatants' actions and answers, and their entropy.
import { html, patch, $, $$, say } from "../lib/dom.js";
import { t } from "../i18n/index.js";
import { actionsHtml, awaited, bindCommands, nameOf, reactionsHtml } from "./actions.js";
import { sheetShell, renderSheet } from "./sheet.js";

// --- player ---------------------------------------------------------------------------

export function playerShell() {
  return html`
    <section class="card" aria-labelledby="mine-title">
      <h2 id="mine-title">${t("your_controls")}</h2>
      <div id="mine"></div>
      <p id="player-msg" class="form-msg" role="status"></p>
    </section>
    ${sheetShell()}
    <section class="card" id="pdice-card" data-fold aria-labelledby="pdice-title">
      <h2 id="pdice-title">${t("dice_card")}</h2>
      <form id="entropy-form" class="entropy" hidden>
        <h3>${t("entropy_title")} <code class="rule">add_entropy</code></h3>
        <p class="muted small">${t("entropy_hint")}</p>
        <div class="row-form">
          <label>${t("entropy_value")} <input name="value" id="entropy-value" required maxlength="256" spellcheck="false"></label>
          <button type="submit" id="entropy-btn">${t("add_entropy")}</button>
        </div>
        <span id="entropy-msg" class="form-msg" role="status"></span>
      </form>
      <form id="proll-form" class="grid-form">
        <label>${t("expr")} <input name="expr" id="proll-expr" required value="1d20" maxlength="40"></label>
        <label>${t("purpose")} <input name="purpose" id="proll-purpose" maxlength="2000"></label>
        <div class="wide"><button type="submit">${t("roll")}</button><span id="proll-msg" class="form-msg" role="status"></span></div>
      </form>
    </section>`;
}

function randomHex() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function bindPlayer(app) {
  bindCommands(app, $("#mine"), $("#player-msg"));
  $("#entropy-value").value = randomHex();
  $("#entropy-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const answer = await app.send({ type: "add_entropy", value: $("#entropy-value").value.trim() }, $("#entropy-msg"));
    if (answer) {
      say($("#entropy-msg"), t("entropy_added"));
      $("#entropy-value").value = randomHex();
    }
  });
  $("#proll-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    await app.send({ type: "roll", expr: f.expr.value.trim(), purpose: f.purpose.value }, $("#proll-msg"));
  });
}

export function renderPlayer(app, b) {
  const closed = b.encounter.closed;
  // After close nothing is played: the forms go off and the page says so (a dispute of a
  // roll stays open to everyone, CONTRACT section 4).
  $$("#proll-form input, #proll-form select, #proll-form button").forEach((el) => { el.disabled = closed; });
  patch($("#mine"), app.mine.map((cid) => {
    const c = b.combatants.find((x) => x.id === cid);
    if (!c) return "";
    if (closed) {
      return html`<div class="mine" data-cid="${cid}" data-closed=""><h3>${c.name}</h3>
        <p class="muted">${t("player_closed")}</p></div>`;
    }
    const pending = b.pending.filter((p) => p.target === cid);
    const turn = b.started && b.actor === cid && !b.encounter.closed;
    // The actor's attack waits on someone else's defence: not a turn to play yet.
    const wait = turn && !pending.length ? awaited(b, cid) : null;
    let body;
    if (pending.length) body = pending.map((p) => reactionsHtml(app, b, p, false));
    else if (wait) {
      const name = wait.target_name || nameOf(b, wait.target);
      body = html`<p class="muted" data-waiting="${wait.target}">${t("wait_answer", { name })}</p>
        <ul class="actions"><li class="action"><button type="button" data-end="${cid}" disabled aria-disabled="true">${t("end_turn")}</button></li></ul>`;
    } else if (turn) body = actionsHtml(app, b, cid);
    else body = html`<p class="muted">${t("wait", { name: c.name })}</p>`;
    const head = pending.length ? t("defend", { name: c.name })
      : wait ? t("turn_waiting", { name: c.name }) : turn ? t("your_turn", { name: c.name }) : c.name;
    return html`<div class="mine ${(turn && !wait) || pending.length ? "hot" : ""}" data-cid="${cid}"><h3>${head}</h3>${body}</div>`;
  }));
  renderSheet(app, b);
  // Entropy counts only before the first roll (CONTRACT section 6).
  const entropy = $("#entropy-form");
  if (entropy) entropy.hidden = b.dice.rolls > 0 || b.encounter.closed;
}
