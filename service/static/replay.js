// The replay viewer: /replay/?game=<id> steps through a game trick by trick.
//
// It reads GET /v1/games/{id}/replay once (with this tab's seat token when it
// has one) and follows the hands itself: from each deal's deck once the game
// is over (every card shown), else from the viewer's own hand and draws.

import {
  REASONS,
  SUITS,
  actionText,
  api,
  cardBack,
  cardFace,
  cardLabel,
  el,
  plural,
  problemText,
  seatNames,
  sortHand,
  suitLabel,
  tokens,
} from "./cards.js";

const $ = (id) => document.getElementById(id);

let steps = [];
let index = 0;
let names = ["Seat 0", "Seat 1"];
let bottom = 0; // the seat drawn at the bottom: the viewer's, seat 0 for spectators

function showProblem(text) {
  $("problem").hidden = !text;
  $("problem").textContent = text || "";
}

// -- following a game ---------------------------------------------------------

/** A deal being followed: hands (lists, or null when unseen), counts, the stock. */
class DealTrack {
  constructor(event, deck, viewer) {
    this.number = event.number;
    this.dealer = event.dealer;
    this.trumpCard = event.trump_card;
    this.trumpSuit = event.trump_card[1];
    this.closedBy = null;
    this.tricks = [];
    this.tricksWon = [0, 0];
    this.marriages = [];
    this.lead = null;
    this.notes = [];
    this.hands = [null, null];
    const nonDealer = 1 - event.dealer;
    if (deck) {
      this.hands[nonDealer] = deck.slice(0, 5);
      this.hands[event.dealer] = deck.slice(5, 10);
      this.talon = deck.slice(11); // drawn from the front; the trump card comes last
    } else {
      this.talon = null;
      if (viewer !== null && viewer !== undefined) this.hands[viewer] = [...event.hand];
    }
    this.counts = [5, 5];
    this.drawn = 0; // cards taken from the stock (talon and trump card)
    this.complete = Boolean(deck);
    this.problems = [];
  }

  get talonSize() {
    return 9 - Math.min(9, this.drawn);
  }

  remove(seat, card) {
    this.counts[seat] -= 1;
    const hand = this.hands[seat];
    if (!hand) return;
    const at = hand.indexOf(card);
    if (at < 0) this.problems.push(`deal ${this.number}: seat ${seat} played ${card}, not in its hand`);
    else hand.splice(at, 1);
  }

  add(seat, card) {
    this.counts[seat] += 1;
    if (this.hands[seat] && card) this.hands[seat].push(card);
  }

  /** After a trick: winner draws, then loser; the trump card is the last card. */
  draw(winner, event, viewer) {
    if (this.closedBy !== null || this.drawn >= 10) return [];
    const own = [...(event.drew || [])]; // the viewer's own draw, when no deck is shown
    const draws = [];
    for (const seat of [winner, 1 - winner]) {
      let card = null;
      if (this.drawn === 9) {
        card = this.trumpCard; // public: the face-up card (the jack after an exchange)
        this.trumpCard = null;
      } else if (this.talon) {
        card = this.talon[this.drawn];
      } else if (seat === viewer) {
        card = own.shift() || null;
      }
      this.drawn += 1;
      this.add(seat, card);
      draws.push({ seat, card });
    }
    return draws;
  }

  snapshot(kind, extra = {}) {
    return {
      kind,
      deal: this.number,
      dealer: this.dealer,
      hands: this.hands.map((h) => (h ? [...h] : null)),
      counts: [...this.counts],
      trumpCard: this.trumpCard,
      trumpSuit: this.trumpSuit,
      talonSize: this.talonSize,
      closedBy: this.closedBy,
      tricksWon: [...this.tricksWon],
      tricks: this.tricks.map((t) => ({ ...t })),
      marriages: [...this.marriages],
      notes: this.notes.splice(0),
      complete: this.complete,
      ...extra,
    };
  }
}

/** The steps of a replay: each deal's start, each trick, each deal's end, the game's end. */
export function buildSteps(replay) {
  const viewer = replay.state.seat;
  const decks = new Map(replay.deals.map((d) => [d.number, d.deck]));
  const out = [];
  const gamePoints = [7, 7];
  const results = [];
  const tracks = [];
  let deal = null;
  const who = (seat) => names[seat];
  const you = (seat) => names[seat] === "You";

  for (const event of replay.events) {
    if (event.type === "deal_started") {
      deal = new DealTrack(event, event.deck || decks.get(event.number), viewer);
      tracks.push(deal);
      out.push(
        deal.snapshot("deal", {
          gamePoints: [...gamePoints],
          results: [...results],
          caption: `Deal ${event.number}: ${who(event.dealer)} ${you(event.dealer) ? "deal" : "deals"}, ` +
            `${who(1 - event.dealer)} ${you(1 - event.dealer) ? "lead" : "leads"}`,
        }),
      );
      continue;
    }
    if (event.type !== "action_taken" || !deal) continue;
    const { seat, action } = event;
    const actor = `${who(seat)} ${actionText(action, you(seat))}`;
    if (action.type === "play") {
      deal.remove(seat, action.card);
      if (!event.trick) {
        deal.lead = { seat, card: action.card };
      } else {
        const trick = { ...event.trick, number: deal.tricks.length + 1 };
        deal.tricks.push(trick);
        deal.tricksWon[trick.winner] += 1;
        deal.lead = null;
        const snap = deal.snapshot("trick", {
          trick,
          gamePoints: [...gamePoints],
          results: [...results],
          caption: `Trick ${trick.number}: ${who(trick.winner)} ${you(trick.winner) ? "win" : "wins"}`,
        });
        const draws = deal.draw(trick.winner, event, viewer);
        const seen = draws.filter((d) => d.card);
        if (seen.length) {
          snap.notes.push(
            seen.map((d) => `${who(d.seat)} ${you(d.seat) ? "draw" : "draws"} ${cardLabel(d.card)}`).join(" \u00b7 "),
          );
        } else if (draws.length) {
          snap.notes.push("Both draw a card");
        }
        out.push(snap);
      }
    } else if (action.type === "exchange_trump_jack") {
      const jack = `J${deal.trumpSuit}`;
      deal.remove(seat, jack);
      deal.add(seat, event.took || deal.trumpCard);
      deal.trumpCard = jack;
      deal.notes.push(`${actor}, ${you(seat) ? "take" : "takes"} ${cardLabel(event.took || jack)}`);
    } else if (action.type === "close_talon") {
      deal.closedBy = seat;
      deal.notes.push(actor);
    } else if (action.type === "declare_marriage") {
      deal.marriages.push({ seat, suit: action.suit, points: event.marriage_points });
      deal.notes.push(`${actor} (${event.marriage_points})`);
    } else {
      deal.notes.push(actor);
    }
    if (event.deal_result) {
      const result = event.deal_result;
      gamePoints[result.winner] = Math.max(0, gamePoints[result.winner] - result.game_points);
      results.push(result);
      out.push(
        deal.snapshot("result", {
          result,
          lead: deal.lead,
          gamePoints: [...gamePoints],
          results: [...results],
          caption: `Deal ${result.number} is over`,
        }),
      );
    }
  }
  if (deal && (deal.lead || deal.notes.length) && !out[out.length - 1].result) {
    // a running game: where it stands now
    out.push(deal.snapshot("now", { lead: deal.lead, gamePoints: [...gamePoints], results: [...results], caption: "Now" }));
  }
  if (replay.state.winner !== null && replay.state.winner !== undefined) {
    const last = out[out.length - 1];
    out.push({ ...last, kind: "game", notes: [], gamePoints: [...replay.state.game_points], results: [...results] });
  }
  const problems = tracks.flatMap((t) => t.problems);
  const now = replay.state.deal;
  if (deal && now && deal.hands[viewer] && now.number === deal.number) {
    const mine = [...deal.hands[viewer]].sort().join(" ");
    const theirs = [...now.hand].sort().join(" ");
    if (mine !== theirs) problems.push(`deal ${deal.number}: followed hand ${mine}, the server says ${theirs}`);
  }
  return { steps: out, problems };
}

// -- drawing ------------------------------------------------------------------

function handNodes(step, seat) {
  const hand = step.hands[seat];
  if (hand) return sortHand(hand, step.trumpSuit).map((code) => cardFace(code));
  return Array.from({ length: step.counts[seat] }, () => cardBack());
}

function render() {
  const step = steps[index];
  const top = 1 - bottom;
  document.body.dataset.step = String(index);
  document.body.dataset.kind = step.kind;
  for (const [seat, where] of [[top, "top"], [bottom, "bottom"]]) {
    $(`${where}-name`).textContent = names[seat];
    $(`${where}-stat`).textContent = plural(step.tricksWon[seat], "trick");
    const hand = $(`${where}-hand`);
    hand.classList.toggle("backs", !step.hands[seat]);
    hand.classList.toggle("revealed", Boolean(step.hands[seat]));
    hand.dataset.seat = String(seat);
    hand.replaceChildren(...handNodes(step, seat));
  }

  // the stock
  const stock = $("stock");
  const parts = [];
  if (step.trumpCard) {
    const trump = cardFace(step.trumpCard, { title: "the trump card" });
    trump.classList.add("trump-card");
    parts.push(trump);
  }
  if (step.talonSize > 0) {
    const pile = el("div", { class: "talon" });
    for (let i = 0; i < Math.min(step.talonSize, 4); i++) {
      const back = cardBack();
      back.style.transform = `translate(${-i * 2}px, ${-i * 2}px)`;
      pile.append(back);
    }
    parts.push(pile);
  }
  if (step.closedBy !== null) parts.push(el("div", { class: "closed-mark" }, "CLOSED"));
  const label =
    step.closedBy !== null
      ? `Talon closed by ${names[step.closedBy]}`
      : step.talonSize > 0
        ? `Talon: ${plural(step.talonSize, "card")}`
        : "Talon exhausted";
  parts.push(el("div", { class: "label" }, label));
  stock.classList.toggle("closed", step.closedBy !== null);
  stock.replaceChildren(...parts);

  // the trick, or the lead of an unfinished one
  const trick = $("trick");
  const playedNode = (c, winner) =>
    el("div", { class: `played ${c.seat === bottom ? "down" : "up"}${winner ? " winner" : ""}` }, cardFace(c.card), names[c.seat]);
  if (step.kind === "trick") {
    trick.replaceChildren(...step.trick.cards.map((c) => playedNode(c, c.seat === step.trick.winner)));
  } else if (step.lead && step.kind !== "game") {
    trick.replaceChildren(playedNode(step.lead, false), el("div", { class: "slot" }));
  } else if (step.kind === "game") {
    trick.replaceChildren();
  } else {
    trick.replaceChildren(el("div", { class: "slot" }), el("div", { class: "slot" }));
  }
  $("caption").textContent = step.kind === "game" ? "" : step.caption;

  // what else happened: notes, a deal's result
  const banner = $("banner");
  const lines = [...step.notes];
  if (step.result && step.kind === "result") lines.push(resultText(step.result));
  banner.hidden = lines.length === 0;
  banner.replaceChildren(...lines.flatMap((line, i) => (i ? [el("br"), line] : [line])));
  banner.classList.toggle("good", step.kind === "result");

  // the end of the game
  const final = $("final");
  final.hidden = step.kind !== "game";
  if (step.kind === "game") {
    const winner = replayData.state.winner;
    $("final-headline").textContent = names[winner] === "You" ? "You won the game" : `${names[winner]} won the game`;
    const viewer = replayData.state.seat;
    const lost = viewer !== null && viewer !== undefined && winner !== viewer;
    $("final-headline").className = `headline ${lost ? "lost" : "won"}`;
    $("final-detail").textContent =
      `Game points left: ${names[0]} ${step.gamePoints[0]}, ${names[1]} ${step.gamePoints[1]}, ` +
      `after ${plural(step.results.length, "deal")}.`;
  }

  // trumps and marriages
  const suit = SUITS[step.trumpSuit];
  $("trump-info").replaceChildren(
    el("span", { class: "small" }, "Trumps"),
    el("span", { class: `big ${suit.red ? "red" : "black"}` }, suit.symbol),
    el("span", { class: "small" }, suit.name),
    ...step.marriages.map((m) =>
      el("div", { class: "small" }, `${names[m.seat]}: ${m.points} in ${suitLabel(m.suit)}`),
    ),
  );

  // side: game points, the deal's tricks, the deals so far
  $("scores").replaceChildren(
    ...[0, 1].flatMap((seat) => [el("span", {}, names[seat]), el("span", { class: "gp", dataset: { seat } }, step.gamePoints[seat])]),
  );
  $("tricks-title").textContent = `Deal ${step.deal}: tricks`;
  $("tricks").replaceChildren(
    ...step.tricks.map((t) =>
      el(
        "li",
        { class: step.kind === "trick" && t.number === step.trick.number ? "current" : "" },
        `${t.number}. `,
        ...t.cards.flatMap((c) => [el("span", { class: SUITS[c.card[1]].red ? "red" : "" }, cardLabel(c.card)), " "]),
        `\u2192 ${names[t.winner]}`,
      ),
    ),
  );
  $("deals").replaceChildren(
    ...step.results.map((d) =>
      el(
        "tr",
        {},
        el("td", {}, d.number),
        el("td", {}, names[d.winner]),
        el("td", {}, d.game_points),
        el("td", { title: `card points ${d.card_points[0]}:${d.card_points[1]}` }, REASONS[d.reason] || d.reason),
      ),
    ),
  );

  $("where").textContent = `${whereText(step)} \u00b7 ${index + 1}/${steps.length}`;
  $("prev").disabled = index === 0;
  $("next").disabled = index === steps.length - 1;
}

function whereText(step) {
  switch (step.kind) {
    case "deal":
      return `Deal ${step.deal}: the cards`;
    case "trick":
      return `Deal ${step.deal}, trick ${step.trick.number}`;
    case "result":
      return `Deal ${step.deal}: result`;
    case "game":
      return "Game over";
    default:
      return `Deal ${step.deal}: now`;
  }
}

function resultText(result) {
  const winner = names[result.winner];
  return (
    `${winner} ${winner === "You" ? "win" : "wins"} deal ${result.number}: ` +
    `${plural(result.game_points, "game point")}, ${REASONS[result.reason] || result.reason}; ` +
    `card points ${result.card_points[0]}:${result.card_points[1]}`
  );
}

function go(to) {
  const target = Math.max(0, Math.min(steps.length - 1, to));
  if (target === index) return;
  index = target;
  render();
}

// -- start ------------------------------------------------------------------

let replayData = null;

async function load(gameId) {
  document.body.dataset.state = "loading";
  const token = tokens.get(gameId);
  try {
    replayData = await api("GET", `/v1/games/${encodeURIComponent(gameId)}/replay`, { token });
  } catch (error) {
    showProblem(problemText(error));
    document.body.dataset.state = "error";
    return;
  }
  showProblem(null);
  const viewer = replayData.state.seat;
  bottom = viewer === null || viewer === undefined ? 0 : viewer;
  names = seatNames(replayData.state.players, viewer);
  const built = buildSteps(replayData);
  steps = built.steps;
  if (built.problems.length) {
    console.error("replay inconsistent:", built.problems.join("; "));
    document.body.dataset.inconsistent = built.problems.join("; ");
  }
  if (!steps.length) {
    showProblem("This game has no deal yet.");
    document.body.dataset.state = "error";
    return;
  }
  $("game-id").textContent = `game ${gameId}`;
  $("game-input").value = gameId;
  $("visibility").textContent = replayData.complete
    ? "The game is over: every deal's cards are shown."
    : viewer === null || viewer === undefined
      ? "A spectator's replay: hands stay hidden until the game is over."
      : "The game is running: you see your own cards only.";
  $("layout").classList.remove("single");
  $("table").hidden = false;
  $("scores-panel").hidden = false;
  $("tricks-panel").hidden = false;
  $("open-panel").style.order = 5;
  index = 0;
  render();
  document.body.dataset.state = "ready";
}

function init() {
  $("prev").addEventListener("click", () => go(index - 1));
  $("next").addEventListener("click", () => go(index + 1));
  document.addEventListener("keydown", (event) => {
    if (!steps.length || event.target.tagName === "INPUT") return;
    const moves = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: steps.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      go(moves[event.key]);
    }
  });
  $("open-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = $("game-input").value.trim();
    history.replaceState(null, "", `/replay/?game=${encodeURIComponent(id)}`);
    load(id);
  });
  const gameId = new URLSearchParams(location.search).get("game");
  if (gameId) load(gameId);
  else document.body.dataset.state = "idle";
}

init();
