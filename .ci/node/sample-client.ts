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
  for (let step = 0; step < 50; step++) {
    const board = await call<Board>(`${base}/api/encounters/${made.id}`, { headers: auth });
    if (board.winner !== null || board.decided || board.actor === null) return board.winner;
    const actor: string = board.actor;
    const names: string[] = board.combatants.map((c) => `${c.name} (${c.resources["hp"] ?? "?"})`);
    console.log(board.round, names.join(", "), board.pending.length);
    const entries: Schemas["LegalEntry"][] = board.legal[actor] ?? [];
    const move = entries.find((e) => e.enabled && e.targets.length > 0 && !e.reaction);
    if (move) {
      const odds = move.chance == null ? "" : ` at ${move.chance}%`;
      console.log(`${actor}: ${move.action} on ${move.targets[0]}${odds} (${move.reason_fr})`);
      await send({ type: "act", actor, action: move.action, target: move.targets[0] });
    } else {
      await send({ type: "end_turn", actor });
    }
  }
  return null;
}
