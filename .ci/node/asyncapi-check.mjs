// Loads an AsyncAPI document with @asyncapi/parser and prints every diagnostic.
// Exit 1 on any error (severity 0); warnings are printed, not fatal.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Parser } from "@asyncapi/parser";

const require = createRequire(import.meta.url);
const version = require("@asyncapi/parser/package.json").version;
const file = process.argv[2];
const text = await readFile(file, "utf8");
const { document, diagnostics } = await new Parser().parse(text);
const errors = diagnostics.filter((d) => d.severity === 0);
for (const d of diagnostics) {
  console.log(`  [${["error", "warning", "info", "hint"][d.severity]}] ${d.code}: ${d.message} at ${d.path.join("/")}`);
}
console.log(`@asyncapi/parser ${version}: ${errors.length} errors, ${diagnostics.length - errors.length} other diagnostics, document ${document ? "loaded" : "refused"}`);
process.exit(errors.length === 0 && document ? 0 : 1);
