// Sections that fold: a `section.card[data-fold]` becomes a <details> whose <summary> is
// its heading. The page remembers each section's state by its id (store.js); untouched,
// a section is open on a wide screen and folded on a narrow one, where the live part of
// the page (status, turn, combatants) comes first and the setup forms wait below.
import { $$ } from "./dom.js";
import { folded, keepFolded } from "./store.js";

const NARROW = "(max-width: 800px)";

/** Turn every `[data-fold]` section under `root` into a <details>, once. */
export function foldSections(root) {
  const narrow = window.matchMedia(NARROW).matches;
  for (const section of $$("section[data-fold]", root)) {
    if (section.querySelector(":scope > details.fold")) continue;
    const heading = section.querySelector(":scope > h2");
    if (!section.id || !heading) continue;
    const details = document.createElement("details");
    details.className = "fold";
    const summary = document.createElement("summary");
    summary.append(heading);
    details.append(summary, ...Array.from(section.childNodes));
    section.append(details);
    const kept = folded(section.id);
    details.open = kept === null ? !narrow : !kept;
    details.addEventListener("toggle", () => keepFolded(section.id, !details.open));
  }
}

/** Open the folded sections around `el` (a shortcut or a link that goes there). */
export function reveal(el) {
  for (let d = el && el.closest("details.fold"); d; d = d.parentElement.closest("details.fold")) {
    d.open = true;
  }
}

// A link to something inside a folded section opens it first.
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[href^='#']");
  if (!a || a.getAttribute("href").length < 2) return;
  const target = document.getElementById(a.getAttribute("href").slice(1));
  if (target) reveal(target);
});
