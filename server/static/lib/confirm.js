// An accessible confirmation for what no undo reverts (close) or what a click should not
// do alone mid-fight (remove): a native <dialog> opened modal, so focus stays in it, Escape
// cancels, and the question is its accessible name. Resolves true only on the confirm button.
import { html } from "./dom.js";
import { t } from "../i18n/index.js";

export function confirmAction({ title, body, confirm, danger = true }) {
  return new Promise((resolve) => {
    const box = document.createElement("dialog");
    box.className = "confirm";
    box.setAttribute("aria-labelledby", "confirm-title");
    box.setAttribute("aria-describedby", "confirm-body");
    box.innerHTML = String(html`<form method="dialog">
      <h2 id="confirm-title">${title}</h2>
      <p id="confirm-body">${body}</p>
      <div class="buttons">
        <button type="submit" value="cancel" id="confirm-cancel" class="ghost">${t("confirm_cancel")}</button>
        <button type="submit" value="ok" id="confirm-ok" class="${danger ? "danger" : ""}">${confirm}</button>
      </div></form>`);
    document.body.append(box);
    box.addEventListener("close", () => {
      const ok = box.returnValue === "ok";
      box.remove();
      resolve(ok);
    });
    box.showModal();
    box.querySelector("#confirm-cancel").focus(); // the safe choice first
  });
}

export const confirmClose = () =>
  confirmAction({ title: t("confirm_close_title"), body: t("confirm_close_body"), confirm: t("close_reveal") });

export const confirmRemove = (name, started) =>
  confirmAction({
    title: t("remove_confirm", { name }),
    body: started ? t("confirm_remove_body_fight", { name }) : t("confirm_remove_body", { name }),
    confirm: t("remove_combatant"),
  });
