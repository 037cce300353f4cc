// Small SVG charts drawn from the data (no chart framework): a bar chart with an optional
// expected line (dice fairness, histograms) and horizontal bars with 95% intervals (win
// rates). Every chart is role="img" with a label in words, and its numbers are also in a
// collapsible table for screen readers and for anyone who prefers reading to looking.
import { html } from "./dom.js";
import { t, lang } from "../i18n/index.js";


const num = (x, digits = 2, least = 0) => Number(x).toLocaleString(lang() === "fr" ? "fr-FR" : "en-US",
  { minimumFractionDigits: least, maximumFractionDigits: digits });

/** A p-value in words: at or above 0.05 the die looks fair, below it the scatter is unusual. */
export function pWords(p) {
  const shown = p >= 0.001 ? num(p, 3) : p.toExponential(1);
  return p >= 0.05 ? t("fair", { p: shown }) : t("unusual", { p: shown });
}

/**
 * Vertical bars (one per item of `bars`: {label, value}) with an optional dashed
 * `expected` line. The viewBox scales to the container; labels thin out with many bars.
 */
export function barChart(bars, { expected = null, label = "", height = 110 } = {}) {
  const W = 320;
  const H = height;
  const top = 8;
  const bottom = 18;
  const plot = H - top - bottom;
  const peak = Math.max(1, expected ?? 0, ...bars.map((b) => b.value));
  // Room for the peak's label at the left of the axis ("1,550" was cut to ".,550").
  const left = Math.max(26, Math.ceil(10 + 6.2 * num(peak, 1).length));
  const step = (W - left - 4) / Math.max(1, bars.length);
  const y = (v) => top + plot - (plot * v) / peak;
  const every = Math.max(1, Math.ceil(bars.length / 10));
  const rects = bars.map((b, i) => {
    const x = left + i * step;
    const h = (plot * b.value) / peak;
    const n = bars.length;
    const lab = (n - 1 - i) % every === 0 || (i === 0 && every >= 5)
      ? `<text x="${(x + step / 2).toFixed(1)}" y="${H - 5}" class="ax" text-anchor="middle">${b.label}</text>` : "";
    return `<rect x="${(x + step * 0.12).toFixed(1)}" y="${(top + plot - h).toFixed(1)}" width="${(step * 0.76).toFixed(1)}"`
      + ` height="${h.toFixed(1)}" class="bar"><title>${b.label}: ${b.value}</title></rect>${lab}`;
  }).join("");
  const line = expected !== null
    ? `<line x1="${left}" x2="${W - 4}" y1="${y(expected).toFixed(1)}" y2="${y(expected).toFixed(1)}" class="expected"/>`
    : "";
  const axis = `<line x1="${left}" x2="${W - 4}" y1="${top + plot}" y2="${top + plot}" class="axis"/>`
    + `<text x="${left - 4}" y="${top + 8}" class="ax" text-anchor="end">${num(peak, 1)}</text>`
    + `<text x="${left - 4}" y="${top + plot}" class="ax" text-anchor="end">0</text>`;
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${label}"
    preserveAspectRatio="xMidYMid meet">${html([rects + line + axis])}</svg>`;
}

/** Horizontal bars from 0 to 1 (rates), each with a whisker for its 95% interval. */
export function rateChart(rows, { label = t("chart_rates") } = {}) {
  const W = 320;
  const rowH = 26;
  const left = 92;
  const H = rows.length * rowH + 16;
  const x = (v) => left + (W - left - 20) * v;
  const body = rows.map((r, i) => {
    const y0 = 6 + i * rowH;
    const name = String(r.name).length > 14 ? `${String(r.name).slice(0, 13)}…` : String(r.name);
    return `<text x="${left - 6}" y="${y0 + 14}" class="ax" text-anchor="end">${escText(name)}</text>`
      + `<rect x="${left}" y="${y0 + 3}" width="${(x(r.rate) - left).toFixed(1)}" height="14" class="bar side-${r.side}"/>`
      + `<line x1="${x(r.low).toFixed(1)}" x2="${x(r.high).toFixed(1)}" y1="${y0 + 10}" y2="${y0 + 10}" class="whisker"/>`
      + `<line x1="${x(r.low).toFixed(1)}" x2="${x(r.low).toFixed(1)}" y1="${y0 + 5}" y2="${y0 + 15}" class="whisker"/>`
      + `<line x1="${x(r.high).toFixed(1)}" x2="${x(r.high).toFixed(1)}" y1="${y0 + 5}" y2="${y0 + 15}" class="whisker"/>`;
  }).join("");
  const ticks = [0, 0.5, 1].map((v) => `<text x="${x(v).toFixed(1)}" y="${H - 2}" class="ax" text-anchor="middle">${v * 100}%</text>`).join("");
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${label}">${html([body + ticks])}</svg>`;
}

function escText(s) {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

/** A collapsible table of the numbers behind a chart. */
export function numbers(head, rows) {
  return html`<details class="numbers"><summary>${t("numbers")}</summary>
    <table class="facts num-table"><thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table></details>`;
}

/** One die size's chart, verdict and table (an entry of GET .../dice). */
export function dieChart(die, s) {
  const bars = Object.entries(s.faces).map(([face, n]) => ({ label: face, value: n }));
  const verdict = s.df > 0 ? pWords(s.p_value) : "";
  const few = s.df > 0 && s.expected < 5 ? html`<span class="muted small"> · ${t("few")}</span>` : "";
  const cls = s.df > 0 && s.p_value < 0.05 ? "verdict unusual" : "verdict fair";
  return html`<figure class="die-chart" data-die="${die}">
    <figcaption><b>${die}</b> · ${t("rolls_n", { n: s.rolls })}</figcaption>
    ${barChart(bars, { expected: s.expected, label: t("chart_dice", { die, n: s.rolls, e: num(s.expected) }) })}
    <p class="${cls}" data-p="${s.p_value}">${verdict}${few}</p>
    ${numbers([t("face"), t("count"), t("expected")], bars.map((b) => [b.label, b.value, num(s.expected)]))}
  </figure>`;
}

/** Every die size of a dice answer, server and physical dice apart; `only` picks sizes. */
export function diceCharts(stats, { only = null, source = null } = {}) {
  const parts = [];
  for (const src of ["server", "manual"]) {
    if (source && src !== source) continue;
    const dice = Object.entries(stats[src] || {}).filter(([die]) => !only || only.includes(die));
    if (!dice.length) continue;
    parts.push(html`<h3 class="dice-src">${t(`src_${src}`)}</h3>
      <div class="die-charts">${dice.map(([die, s]) => dieChart(die, s))}</div>`);
  }
  return parts.length ? parts : html`<p class="muted">${t("dice_none")}</p>`;
}

/** A histogram answer ([{low, high, count}]) as a bar chart with its table. */
export function histogram(title, buckets) {
  const bars = buckets.map((b) => ({ label: b.low === b.high ? `${b.low}` : `${b.low}–${b.high}`, value: b.count }));
  const n = bars.reduce((s, b) => s + b.value, 0);
  return html`<figure class="hist-chart">
    <figcaption><b>${title}</b></figcaption>
    ${barChart(bars, { label: t("chart_hist", { title, n, k: bars.length }) })}
    ${numbers([t("bucket"), t("count")], bars.map((b) => [b.label, b.value]))}
  </figure>`;
}

/** A resolver answer's charts: win rates with intervals, rounds and damage histograms. */
export function simCharts(r, prefix = "sim") {
  const rows = ["a", "b"].map((side) => ({ side, name: r.names[side], ...r.rates[side] }));
  const h = r.histograms || { rounds: [], damage_per_hit: [] };
  const pc = (x) => `${num(100 * x, 1, 1)}${lang() === "fr" ? " %" : "%"}`;
  return html`<div class="hist-charts" id="${prefix}-charts">
    <figure class="hist-chart rate-chart"><figcaption><b>${t("chart_rates")}</b></figcaption>
      ${rateChart(rows)}
      ${numbers(["", t("rate"), t("low"), t("high")], rows.map((x) => [x.name, pc(x.rate), pc(x.low), pc(x.high)]))}</figure>
    ${histogram(t("hist_rounds"), h.rounds)}
    ${histogram(t("hist_damage"), h.damage_per_hit)}
  </div>`;
}

/** Two runs side by side, and how much fighter A's odds moved between them. */
export function simCompare(kept, now) {
  const pc = (x) => `${num(100 * x, 1, 1)}${lang() === "fr" ? " %" : "%"}`;
  const d = 100 * (now.rates.a.rate - kept.rates.a.rate);
  const col = (r, key, id) => html`<section id="${id}" aria-label="${t(key)}">
    <h3>${t(key)}: ${r.names.a} vs ${r.names.b}</h3>
    <p class="muted small">${r.fights} · seed ${r.seed}</p>
    ${simCharts(r, id)}</section>`;
  return html`<h2>${t("compare")}</h2>
    <p class="sim-delta" id="sim-delta">${t("win_delta", { a: now.names.a, from: pc(kept.rates.a.rate), to: pc(now.rates.a.rate),
      d: `${d >= 0 ? "+" : "−"}${num(Math.abs(d), 1, 1)}` })}</p>
    <div class="sim-compare">${col(kept, "matchup_1", "sim-kept")}${col(now, "matchup_2", "sim-now")}</div>`;
}
