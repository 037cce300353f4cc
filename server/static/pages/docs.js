// /docs: renders /openapi.json with no library (works offline): operations grouped by tag,
// their parameters, bodies and answers, and every schema, each $ref a link to its schema.
import { lang, setLang, t } from "../i18n/index.js";

const main = document.querySelector("#main");

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

const schemaName = (ref) => ref.split("/").pop();

/** A schema in one line: a link for a $ref, its type or union otherwise. */
function summary(schema) {
  if (!schema || typeof schema !== "object") return el("code", {}, "any");
  if (schema.$ref) {
    const name = schemaName(schema.$ref);
    return el("a", { href: `#schema-${name}` }, el("code", {}, name));
  }
  const union = schema.anyOf || schema.oneOf;
  if (union) {
    const span = el("span");
    union.forEach((s, i) => { if (i) span.append(" | "); span.append(summary(s)); });
    return span;
  }
  if (schema.type === "array") {
    const span = el("span", {}, "[");
    span.append(summary(schema.items), "]");
    return span;
  }
  if (schema.enum) return el("code", {}, schema.enum.map((v) => JSON.stringify(v)).join(" | "));
  return el("code", {}, [].concat(schema.type || "any").join(" | "));
}

/** A JSON Schema as indented JSON, its $refs made links. */
function pretty(schema) {
  const pre = el("pre", { class: "schema" });
  const text = JSON.stringify(schema, null, 2);
  let last = 0;
  for (const m of text.matchAll(/"#\/components\/schemas\/([A-Za-z0-9_.-]+)"/g)) {
    pre.append(text.slice(last, m.index));
    pre.append(el("a", { href: `#schema-${m[1]}` }, m[0]));
    last = m.index + m[0].length;
  }
  pre.append(text.slice(last));
  return pre;
}

function operation(method, path, op) {
  const box = el("details", { class: "op", id: `op-${op.operationId}` });
  box.append(el("summary", {}, el("strong", { class: `method ${method}` }, method.toUpperCase()),
    " ", el("code", {}, path), " ", el("span", { class: "muted" }, op.summary || "")));
  const auth = !op.security ? "docs_auth_none"
    : op.security.some((s) => Object.keys(s).length === 0) ? "docs_auth_optional" : "docs_auth_required";
  box.append(el("p", { class: "small muted" }, t(auth)));
  if (op.parameters?.length) {
    box.append(el("h4", {}, t("docs_params")));
    const list = el("ul");
    for (const p of op.parameters) {
      const item = el("li", {}, el("code", {}, p.name), " ", t("docs_in", { where: p.in }), ", ",
        t(p.required ? "docs_required" : "docs_optional"), ": ", summary(p.schema));
      if (p.description) item.append(" — ", p.description);
      list.append(item);
    }
    box.append(list);
  }
  const body = op.requestBody?.content?.["application/json"]?.schema;
  if (body) box.append(el("h4", {}, t("docs_body")), el("p", {}, summary(body)));
  box.append(el("h4", {}, t("docs_answers")));
  const answers = el("ul");
  for (const [status, answer] of Object.entries(op.responses || {})) {
    const item = el("li", {}, el("strong", {}, status), " ", answer.description || "");
    for (const [type, media] of Object.entries(answer.content || {})) {
      item.append(" · ", el("span", { class: "muted" }, type), " ", summary(media.schema));
    }
    answers.append(item);
  }
  box.append(answers);
  return box;
}

function render(doc) {
  main.replaceChildren();
  document.title = t("docs_title");
  main.append(el("h1", {}, t("docs_title")));
  const intro = el("p", {}, t("docs_intro"), " ");
  intro.append(el("a", { href: "/openapi.json" }, "/openapi.json"), " · ",
    el("a", { href: "/asyncapi.json" }, "/asyncapi.json"), ` (${t("docs_ws")}) · `,
    el("a", { href: "/api/schema" }, "/api/schema"), ` (${t("docs_schema")})`);
  main.append(intro);
  if (doc.info?.description) main.append(el("p", { class: "muted" }, doc.info.description));
  main.append(el("h2", {}, t("docs_ops")));
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] || "";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(operation(method, path, op));
    }
  }
  for (const [tag, ops] of byTag) {
    const section = el("section", { class: "card" }, el("h3", {}, tag));
    section.append(...ops);
    main.append(section);
  }
  main.append(el("h2", {}, t("docs_schemas")));
  const schemas = el("section", { class: "card" });
  for (const [name, schema] of Object.entries(doc.components?.schemas || {})) {
    const box = el("details", { class: "op", id: `schema-${name}` });
    box.append(el("summary", {}, el("code", {}, name), " ",
      el("span", { class: "muted" }, (schema.title || schema.description || "").split("\n")[0])));
    box.append(pretty(schema));
    schemas.append(box);
  }
  main.append(schemas);
  if (location.hash) document.querySelector(location.hash)?.setAttribute("open", "");
}

let doc = null;
async function start() {
  setLang(lang());
  const btn = document.querySelector("#lang-toggle");
  const label = () => { btn.textContent = t("lang_switch"); btn.lang = lang() === "fr" ? "en" : "fr"; };
  btn.addEventListener("click", () => { setLang(lang() === "fr" ? "en" : "fr"); label(); if (doc) render(doc); });
  label();
  try {
    const r = await fetch("/openapi.json");
    if (!r.ok) throw new Error(String(r.status));
    doc = await r.json();
    render(doc);
  } catch {
    main.replaceChildren(el("p", { role: "alert" }, t("docs_failed")));
  }
}

window.addEventListener("hashchange", () => document.querySelector(location.hash)?.setAttribute("open", ""));
start();
