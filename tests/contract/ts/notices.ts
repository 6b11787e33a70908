// A webhook receiver's reading of notices with the types openapi-typescript generates
// from openapi.yaml (schema.d.ts): the body of each `webhooks` entry is a member of
// `Notice`, narrowed on `type` with nothing left over. tests/contract/test_studio_flow.py
// compiles it with `tsc --strict` and runs it on every notice a receiver got:
// node out/notices.js notices.json
import { readFileSync } from "node:fs";
import type { components, webhooks } from "./schema.js";

type Notice = components["schemas"]["Notice"];
// What a receiver of `game.turn` alone is sent: the same type as the union's member.
type TurnBody = webhooks["game.turn"]["post"]["requestBody"]["content"]["application/json"];

class ContractError extends Error {}

function describe(notice: Notice): string {
  switch (notice.type) {
    case "game.turn": {
      const turn: TurnBody = notice;
      if (turn.data.game.to_move !== turn.data.seat) throw new ContractError("a turn for a seat not to move");
      return `turn of seat ${turn.data.seat} at ${turn.data.version}`;
    }
    case "game.finished":
      if (notice.data.game.status !== "finished") throw new ContractError("finished, but not over");
      return `finished, winner ${notice.data.game.winner ?? "none"}`;
    case "game.started":
    case "seek.paired":
    case "challenge.accepted":
    case "rematch.offered":
      return `${notice.type} for ${notice.data.player_id ?? "an anonymous seat"}`;
    default: {
      const unknown: never = notice;
      throw new ContractError(`a kind of notice no type names: ${JSON.stringify(unknown)}`);
    }
  }
}

const [path] = process.argv.slice(2);
if (path === undefined) throw new ContractError("usage: notices NOTICES_JSON");
const notices: Notice[] = JSON.parse(readFileSync(path, "utf8"));
const counts = new Map<string, number>();
for (const notice of notices) {
  describe(notice);
  counts.set(notice.type, (counts.get(notice.type) ?? 0) + 1);
}
for (const [kind, count] of [...counts].sort()) console.log(`${kind}: ${count}`);
