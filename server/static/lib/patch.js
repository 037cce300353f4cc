// RFC 6902 JSON Patch, applied to a copy: add, remove, replace, move, copy, test on RFC
// 6901 pointers. The live feed (`patch=1`) sends one per update (CONTRACT section 7).
export class PatchError extends Error {
  constructor(message) { super(message); this.name = "PatchError"; }
}

function tokens(pointer) {
  if (pointer === "") return [];
  if (pointer[0] !== "/") throw new PatchError(`bad pointer ${pointer}`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function index(arr, key, adding) {
  if (adding && key === "-") return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(key)) throw new PatchError(`bad index ${key}`);
  const i = Number(key);
  if (i > arr.length || (!adding && i === arr.length)) throw new PatchError(`index ${key} out of range`);
  return i;
}

// The container of `pointer`'s target and the last token (the root has no container).
function locate(doc, pointer) {
  const path = tokens(pointer);
  let node = doc;
  for (const key of path.slice(0, -1)) {
    const next = Array.isArray(node) ? node[index(node, key, false)] : (node !== null && typeof node === "object" && Object.hasOwn(node, key) ? node[key] : undefined);
    if (next === undefined || next === null || typeof next !== "object") throw new PatchError(`no ${pointer}`);
    node = next;
  }
  return [node, path[path.length - 1]];
}

function get(doc, pointer) {
  if (pointer === "") return doc;
  const [parent, key] = locate(doc, pointer);
  if (Array.isArray(parent)) return parent[index(parent, key, false)];
  if (!Object.hasOwn(parent, key)) throw new PatchError(`no ${pointer}`);
  return parent[key];
}

function add(doc, pointer, value) {
  if (pointer === "") return value;
  const [parent, key] = locate(doc, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, key, true), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc, pointer) {
  if (pointer === "") throw new PatchError("cannot remove the whole document");
  const [parent, key] = locate(doc, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, key, false), 1);
  else if (Object.hasOwn(parent, key)) delete parent[key];
  else throw new PatchError(`no ${pointer}`);
  return doc;
}

// In place: a member keeps its position among its object's keys (a remove and an add
// would move it to the end, and a combatant's resources would reorder on every change).
function replace(doc, pointer, value) {
  if (pointer === "") return value;
  get(doc, pointer);
  const [parent, key] = locate(doc, pointer);
  parent[Array.isArray(parent) ? index(parent, key, false) : key] = value;
  return doc;
}

function equal(a, b) {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(v) {
  if (Array.isArray(v)) return v.map(sorted);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]));
}

/** `doc` with `ops` applied (doc itself is left as it was); throws PatchError. */
export function applyPatch(doc, ops) {
  let out = structuredClone(doc);
  for (const op of ops) {
    switch (op.op) {
      case "add": out = add(out, op.path, structuredClone(op.value)); break;
      case "remove": out = remove(out, op.path); break;
      case "replace": out = replace(out, op.path, structuredClone(op.value)); break;
      case "move": { const v = get(out, op.from); if (op.path.startsWith(`${op.from}/`)) throw new PatchError("cannot move into itself"); out = add(remove(out, op.from), op.path, v); break; }
      case "copy": out = add(out, op.path, structuredClone(get(out, op.from))); break;
      case "test": if (!equal(get(out, op.path), op.value)) throw new PatchError(`test failed at ${op.path}`); break;
      default: throw new PatchError(`unknown op ${op.op}`);
    }
  }
  return out;
}
