// A studio's backend written against the types openapi-typescript generates from
// openapi.yaml (schema.d.ts), with openapi-fetch: every call a typed path, every
// answer's data the type its operation names. Two players of one client app
// register, seek and are paired, play the game out seat by seat, offer and accept a
// rematch, challenge each other to a game on a clock, play a Swiss of one round; the
// app registers a webhook on
// its own receiver on 127.0.0.1 and narrows each notice on `type`, reads its
// deliveries, and takes its bulk export, each NDJSON line a GameExportLine.
// tests/contract/test_studio_flow.py compiles it with `tsc --strict` and runs it
// against a live server: node out/flow.js URL KEY OUT_JSON. OUT_JSON gets every
// answer and notice (the test validates them against the spec) and what the types
// did not account for.
import { writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type Notice = Schemas["Notice"];
type GameView = Schemas["GameView"];
type ExportLine = Schemas["GameExportLine"];
type Seat = Schemas["Seat"];
type Api = ReturnType<typeof createClient<paths>>;

class ContractError extends Error {}

interface Recorded {
  method: string;
  path: string;
  status: number;
  content_type: string;
  body: string;
}
interface Delivery {
  body: string;
  headers: Record<string, string>;
}

const answers: Recorded[] = [];
const mismatches: string[] = [];
// Every answer with the operation (the spec's path template) it answers.
const recorder: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const body = Buffer.from(await response.clone().arrayBuffer()).toString("base64");
    answers.push({
      method: request.method.toLowerCase(),
      path: schemaPath,
      status: response.status,
      content_type: response.headers.get("content-type") ?? "",
      body,
    });
    return undefined;
  },
};

// The data of a successful answer, or the contract is broken.
function must<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) {
    throw new ContractError(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

async function waitFor(condition: () => boolean | Promise<boolean>, seconds: number, what: string) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new ContractError(`no ${what} within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// A webhook endpoint on 127.0.0.1: keeps each delivery's body and headers.
function flat(headers: IncomingHttpHeaders): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") found[name.toLowerCase()] = value;
  }
  return found;
}
const received: Delivery[] = [];
const inbox = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: flat(request.headers) });
    response.writeHead(204).end();
  });
});

// Every kind of notice, as the union names them: a kind missing here does not compile.
const KINDS: Record<Notice["type"], true> = {
  "game.started": true,
  "game.turn": true,
  "game.finished": true,
  "seek.paired": true,
  "challenge.accepted": true,
  "rematch.offered": true,
  "tournament.started": true,
  "tournament.round_paired": true,
  "tournament.finished": true,
};

// The notice narrowed on `type`, each kind checked on what its type promises.
function readNotice(notice: Notice): Notice["type"] {
  switch (notice.type) {
    case "game.turn":
      if (notice.data.game.to_move !== notice.data.seat) mismatches.push("a game.turn for a seat not to move");
      return notice.type;
    case "game.finished":
      if (notice.data.game.status !== "finished") mismatches.push("a game.finished of a game not over");
      return notice.type;
    case "game.started":
    case "seek.paired":
    case "challenge.accepted":
    case "rematch.offered":
      if (notice.data.game.seat !== notice.data.seat) mismatches.push(`${notice.type}: the game as another seat sees it`);
      return notice.type;
    case "tournament.started":
      if (notice.data.status !== "started") mismatches.push(`a tournament.started of a ${notice.data.status} one`);
      return notice.type;
    case "tournament.round_paired":
      if (notice.data.boards.length === 0) mismatches.push("a tournament.round_paired of no board");
      return notice.type;
    case "tournament.finished":
      if (notice.data.status !== "finished") mismatches.push(`a tournament.finished of a ${notice.data.status} one`);
      return notice.type;
    default: {
      const unknown: never = notice;
      mismatches.push(`a notice no type names: ${JSON.stringify(unknown)}`);
      throw new ContractError("a notice of an unknown kind");
    }
  }
}

function readExport(text: string): ExportLine[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const read: ExportLine = JSON.parse(line);
      if (read.replay.game_id !== read.game_id) mismatches.push(`export line of ${read.game_id}: another replay`);
      return read;
    });
}

class Studio {
  readonly app: Api;
  constructor(
    readonly baseUrl: string,
    readonly key: string,
  ) {
    this.app = this.client({ "X-Client-Key": key });
  }

  client(headers: Record<string, string>): Api {
    const api = createClient<paths>({ baseUrl: this.baseUrl, headers });
    api.use(recorder);
    return api;
  }

  // A player's or a seat's token, sent with the app's key.
  as(token: string): Api {
    return this.client({ "X-Client-Key": this.key, Authorization: `Bearer ${token}` });
  }

  async register(name: string) {
    const body = { app_player_id: `${name.toLowerCase()}-${Math.random().toString(16).slice(2, 10)}`, name };
    return must(await this.app.POST("/v1/players", { body }), name);
  }

  async view(seat: Api, gameId: string): Promise<GameView> {
    return must(await seat.GET("/v1/games/{game_id}", { params: { path: { game_id: gameId } } }), "view");
  }

  // Both seats take their first legal action on their turns until the game is over.
  async playOut(seats: Map<Seat, Api>, gameId: string): Promise<GameView> {
    const seat = (which: Seat): Api => {
      const found = seats.get(which);
      if (found === undefined) throw new ContractError(`no token of seat ${which}`);
      return found;
    };
    let view = await this.view(seat(0), gameId);
    while (view.status !== "finished") {
      if (view.to_move === null) {
        const feed = must(
          await seat(0).GET("/v1/games/{game_id}/events", {
            params: { path: { game_id: gameId }, query: { after: view.version, wait: 5, include: "view" } },
          }),
          "feed",
        );
        if (feed.view !== undefined) view = feed.view;
        continue;
      }
      const mover = seat(view.to_move);
      const mine = await this.view(mover, gameId);
      const action = mine.deal?.legal_actions[0];
      if (mine.to_move !== mine.seat || action === undefined) {
        view = mine;
        continue;
      }
      view = must(
        await mover.POST("/v1/games/{game_id}/actions", { params: { path: { game_id: gameId } }, body: action }),
        "act",
      );
    }
    return view;
  }

  async resign(token: string, gameId: string): Promise<GameView> {
    return must(await this.as(token).POST("/v1/games/{game_id}/resign", { params: { path: { game_id: gameId } } }), "resign");
  }
}

async function flow(studio: Studio, hookUrl: string): Promise<{ notices: Notice["type"][]; lines: ExportLine[] }> {
  const webhook = must(await studio.app.POST("/v1/webhooks", { body: { url: hookUrl } }), "webhook");
  const anna = await studio.register("Anna");
  const ben = await studio.register("Ben");
  must(await studio.as(anna.token).GET("/v1/players/me"), "me");

  // Matchmaking: two seeks paired into a game, each seat learns its own token.
  const seats = new Map<Seat, Api>();
  let gameId: string | null = null;
  const seeks = [];
  for (const player of [anna, ben]) {
    const me = studio.as(player.token);
    seeks.push({ me, seek: must(await me.POST("/v1/seeks", { body: { variant: "head" } }), "seek") });
  }
  for (const { me, seek } of seeks) {
    const params = { path: { seek_id: seek.seek_id }, query: { wait: 10 } };
    const paired = must(await me.GET("/v1/seeks/{seek_id}", { params }), "paired");
    if (paired.status !== "paired" || paired.seat === null || paired.token === null || paired.game_id === null) {
      throw new ContractError(`a seek not paired: ${JSON.stringify(paired)}`);
    }
    seats.set(paired.seat, studio.as(paired.token));
    gameId = paired.game_id;
  }
  if (gameId === null) throw new ContractError("no game");
  const final = await studio.playOut(seats, gameId);
  if (final.winner === null) throw new ContractError("a finished game without a winner");

  // A rematch: offered by the winner, accepted by the other seat, resigned at once.
  const ids = { path: { game_id: gameId } };
  const winner = seats.get(final.winner);
  const loser = seats.get(final.winner === 0 ? 1 : 0);
  if (winner === undefined || loser === undefined) throw new ContractError("a seat without a token");
  must(await winner.POST("/v1/games/{game_id}/rematch", { params: ids }), "offer");
  const rematch = must(await loser.POST("/v1/games/{game_id}/rematch/accept", { params: ids }), "rematch");
  await studio.resign(rematch.token, rematch.game_id);

  // A challenge on a clock, accepted, then resigned.
  const challenge = must(
    await studio.as(anna.token).POST("/v1/challenges", {
      body: { player_id: ben.player.player_id, clock: { seconds_per_move: 60, on_timeout: "lose" } },
    }),
    "challenge",
  );
  const benApi = studio.as(ben.token);
  must(await benApi.GET("/v1/challenges"), "challenges");
  const taken = must(
    await benApi.POST("/v1/challenges/{challenge_id}/accept", {
      params: { path: { challenge_id: challenge.challenge_id } },
    }),
    "accept",
  );
  if (taken.game_id === null || taken.token === null) throw new ContractError("an accepted challenge without its game");
  const clocked = await studio.view(studio.as(taken.token), taken.game_id);
  if (clocked.clock === undefined) throw new ContractError("a challenge on a clock made a game without one");
  await studio.resign(taken.token, taken.game_id);

  // A Swiss of one round for the two: both enter, the round is paired, its game resigned.
  const swiss = must(
    await studio.app.POST("/v1/tournaments", { body: { name: "Friday Swiss", rounds: 1, starts_in: 3 } }),
    "tournament",
  );
  const tournament = { params: { path: { tournament_id: swiss.tournament_id } } };
  for (const player of [anna, ben]) {
    must(await studio.as(player.token).POST("/v1/tournaments/{tournament_id}/entries", tournament), "entry");
  }
  const own: { game_id: string; token: string }[] = [];
  await waitFor(
    async () => {
      const boards = must(await benApi.GET("/v1/tournaments/{tournament_id}/boards", tournament), "boards");
      for (const found of boards.boards) {
        if (found.token !== undefined) own.push({ game_id: found.game_id, token: found.token });
      }
      return own.length > 0;
    },
    60,
    "the board",
  );
  const played = own[0];
  if (played === undefined) throw new ContractError("no board of one's own");
  await studio.resign(played.token, played.game_id);
  await waitFor(
    async () => must(await studio.app.GET("/v1/tournaments/{tournament_id}", tournament), "tournament").status === "finished",
    60,
    "the tournament's end",
  );

  // Every kind of notice arrives; the app reads its webhook and its deliveries.
  const kinds = Object.keys(KINDS);
  await waitFor(
    () => kinds.every((kind) => received.some((got) => got.body.includes(`"type":"${kind}"`))),
    60,
    "notice of every kind",
  );
  const hookIds = { path: { webhook_id: webhook.webhook_id } };
  must(await studio.app.GET("/v1/webhooks"), "webhooks");
  must(await studio.app.GET("/v1/webhooks/{webhook_id}", { params: hookIds }), "webhook");
  must(await studio.app.GET("/v1/webhooks/{webhook_id}/deliveries", { params: hookIds }), "deliveries");
  const annaApi = studio.as(anna.token);
  must(await annaApi.GET("/v1/players/me/games"), "own games");
  const who = { path: { player_id: anna.player.player_id } };
  must(await annaApi.GET("/v1/players/{player_id}/ratings", { params: who }), "ratings");

  // The three finished games, once archived, in the bulk export (NDJSON, read as text).
  const exportGames = async (): Promise<string> =>
    must(await studio.app.GET("/v1/games/export", { params: { query: { client: "me" } }, parseAs: "text" }), "export");
  let text = "";
  await waitFor(
    async () => {
      text = await exportGames();
      return text.split("\n").filter((line) => line !== "").length >= 3;
    },
    180,
    "archived games in the export",
  );
  const notices = received.map((got) => {
    const notice: Notice = JSON.parse(got.body);
    return readNotice(notice);
  });
  return { notices, lines: readExport(text) };
}

const [baseUrl, key, out] = process.argv.slice(2);
if (baseUrl === undefined || key === undefined || out === undefined) {
  throw new ContractError("usage: flow URL KEY OUT_JSON");
}
await new Promise<void>((resolve) => inbox.listen(0, "127.0.0.1", resolve));
const address = inbox.address();
if (address === null || typeof address === "string") throw new ContractError("the receiver has no port");
try {
  const { notices, lines } = await flow(new Studio(baseUrl, key), `http://127.0.0.1:${address.port}/hook`);
  const delivered = received.slice(0, notices.length);
  writeFileSync(
    out,
    JSON.stringify({ answers, notices: delivered, mismatches, read: { notices: notices.length, export_lines: lines.length } }),
  );
  console.log(`answers: ${answers.length}, notices read: ${notices.length}, export lines read: ${lines.length}`);
} finally {
  inbox.close();
}
