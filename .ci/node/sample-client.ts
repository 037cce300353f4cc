// A small client typed only by what openapi-typescript generates from /openapi.json
// (.ci/api-documents writes fracas.d.ts beside this file, then runs tsc --noEmit).
import type { components, paths } from "./fracas";

type Schemas = components["schemas"];
type Created = paths["/api/encounters"]["post"]["responses"][201]["content"]["application/json"];
type Board = paths["/api/encounters/{id}"]["get"]["responses"][200]["content"]["application/json"];
type Command = paths["/api/encounters/{id}/commands"]["post"]["requestBody"]["content"]["application/json"];
type Refusal = Schemas["Error"];

async function call<T>(url: string, init: RequestInit = {}): Promise<T> {
  const r = await fetch(url, init);
  if (!r.ok) {
    const refusal = (await r.json()) as Refusal;
    throw new Error(`${refusal.error.code}: ${refusal.error.message} / ${refusal.error.message_fr}`);
  }
  return (await r.json()) as T;
}

export async function fight(base: string): Promise<string | null> {
  const body: Schemas["CreateEncounter"] = { ruleset: "d20-na", name: "Sample" };
  const made = await call<Created>(`${base}/api/encounters`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const auth = { authorization: `Bearer ${made.gm_token}`, "content-type": "application/json" };
  const send = (command: Command) =>
    call<Schemas["CommandAnswer"]>(`${base}/api/encounters/${made.id}/commands`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify(command),
    });
  await send({ type: "add_combatant", name: "Guard", side: "w", preset: "guard" });
  await send({ type: "add_combatant", name: "Bandit", side: "b", preset: "bandit" });
  await send({ type: "start_combat" });
  const board = await call<Board>(`${base}/api/encounters/${made.id}`, { headers: auth });
  const names: string[] = board.combatants.map((c) => c.name);
  const first: string | null = board.actor;
  console.log(board.round, names, board.decided);
  return first;
}
