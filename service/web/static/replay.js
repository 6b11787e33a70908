// The replay viewer: /replay/?game=<id> steps through a game trick by trick.
//
// It reads GET /v1/games/{id}/replay once (with this tab's seat token when it
// has one) and renders the frames the server built for this viewer: the
// engine deals, draws and scores; this page only draws what it is sent.

import { SUITS, actionText, api, cardBack, cardFace, cardLabel, el, isYou, problemText, seatNames, sortHand, tokens, verb } from "./cards.js";
import { W } from "./words.js";
import { showAnalysis } from "./analysis.js";
import { $, dealResultText, emptySlot, playedCard, renderScores, renderStock, renderTrump, showProblem, showTable } from "./table.js";

let steps = [];
let index = 0;
let names = [W.seat(0), W.seat(1)];
let bottom = 0; // the seat drawn at the bottom: the viewer's, seat 0 for spectators

// -- the frames the server sends ---------------------------------------------------

/** What happened since the last frame, as lines: the server sends the facts. */
function noteLines(frame, who, you) {
  const lines = frame.notes.map((note) => {
    const actor = `${who(note.seat)} ${actionText(note.action, you(note.seat))}`;
    if (note.took) return `${actor}${W.tookCard(verb("take", you(note.seat)), cardLabel(note.took))}`;
    if (note.marriage_points) return `${actor} (${note.marriage_points})`;
    return actor;
  });
  const seen = frame.draws.filter((d) => d.card);
  if (seen.length) {
    lines.push(seen.map((d) => `${who(d.seat)} ${verb("draw", you(d.seat))} ${cardLabel(d.card)}`).join(" \u00b7 "));
  } else if (frame.draws.length) {
    lines.push(W.bothDraw);
  }
  return lines;
}

function captionOf(frame, who, you) {
  switch (frame.kind) {
    case "deal":
      return W.captionDeal(frame.deal, who(frame.dealer), verb("deal", you(frame.dealer)),
        who(1 - frame.dealer), verb("lead", you(1 - frame.dealer)));
    case "trick":
      return W.captionTrick(frame.trick.number, who(frame.trick.winner), verb("win", you(frame.trick.winner)));
    case "result":
      return W.captionResult(frame.result.number);
    case "game":
      return ""; // the final panel says it
    default:
      return W.now;
  }
}

/** The steps of a replay, from the frames the server built (service/engine/frames.py). */
export function buildSteps(replay) {
  const who = (seat) => names[seat];
  const you = (seat) => isYou(names[seat]);
  const steps = replay.steps.map((frame) => ({
    kind: frame.kind,
    deal: frame.deal,
    dealer: frame.dealer,
    hands: frame.hands,
    counts: frame.counts,
    trumpCard: frame.trump_card,
    trumpSuit: frame.trump_suit,
    talonSize: frame.talon_size,
    closedBy: frame.closed_by,
    tricksWon: frame.tricks_won,
    tricks: frame.tricks,
    marriages: frame.marriages,
    notes: frame.kind === "game" ? [] : noteLines(frame, who, you),
    complete: frame.complete,
    lead: frame.lead,
    trick: frame.trick,
    result: frame.result,
    gamePoints: frame.game_points,
    results: frame.results,
    caption: captionOf(frame, who, you),
  }));
  return { steps, problems: [] };
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
    $(`${where}-stat`).textContent = W.tricks(step.tricksWon[seat]);
    const hand = $(`${where}-hand`);
    hand.classList.toggle("backs", !step.hands[seat]);
    hand.classList.toggle("revealed", Boolean(step.hands[seat]));
    hand.dataset.seat = String(seat);
    hand.replaceChildren(...handNodes(step, seat));
  }

  renderStock(step, names);

  // the trick, or the lead of an unfinished one
  const trick = $("trick");
  const playedNode = (c, winner) => playedCard(c, { winner, bottom, names });
  if (step.kind === "trick") {
    trick.replaceChildren(...step.trick.cards.map((c) => playedNode(c, c.seat === step.trick.winner)));
  } else if (step.lead && step.kind !== "game") {
    trick.replaceChildren(playedNode(step.lead, false), emptySlot());
  } else if (step.kind === "game") {
    trick.replaceChildren();
  } else {
    trick.replaceChildren(emptySlot(), emptySlot());
  }
  $("caption").textContent = step.kind === "game" ? "" : step.caption;

  // what else happened: notes, a deal's result
  const banner = $("banner");
  const lines = [...step.notes];
  if (step.result && step.kind === "result") lines.push(dealResultText(step.result, names));
  banner.hidden = lines.length === 0;
  banner.replaceChildren(...lines.flatMap((line, i) => (i ? [el("br"), line] : [line])));
  banner.classList.toggle("good", step.kind === "result");

  // the end of the game
  const final = $("end");
  final.hidden = step.kind !== "game";
  if (step.kind === "game") {
    const winner = replayData.state.winner;
    $("end-headline").textContent = isYou(names[winner]) ? W.replayYouWon : W.wonGame(names[winner]);
    const viewer = replayData.state.seat;
    const lost = viewer !== null && viewer !== undefined && winner !== viewer;
    $("end-headline").className = `headline ${lost ? "lost" : "won"}`;
    $("end-detail").textContent = W.replayPointsLeft(
      `${names[0]} ${step.gamePoints[0]}`,
      `${names[1]} ${step.gamePoints[1]}`,
      W.deals(step.results.length),
    );
  }

  renderTrump(step.trumpSuit, step.marriages, names);
  renderScores([0, 1], step.gamePoints, step.results, names);
  $("tricks-title").textContent = W.dealTricks(step.deal);
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
  $("where").textContent = `${whereText(step)} \u00b7 ${index + 1}/${steps.length}`;
  $("prev").disabled = index === 0;
  $("next").disabled = index === steps.length - 1;
}

function whereText(step) {
  switch (step.kind) {
    case "deal":
      return W.whereDeal(step.deal);
    case "trick":
      return W.whereTrick(step.deal, step.trick.number);
    case "result":
      return W.whereResult(step.deal);
    case "game":
      return W.whereGame;
    default:
      return W.whereNow(step.deal);
  }
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
    showProblem(W.noDeal);
    document.body.dataset.state = "error";
    return;
  }
  $("game-id").textContent = W.gameId(gameId);
  $("game-input").value = gameId;
  $("visibility").textContent = replayData.complete
    ? W.visibleAll
    : viewer === null || viewer === undefined
      ? W.visibleSpectator
      : W.visibleOwn;
  showTable(["scores-panel", "tricks-panel", "analysis-panel"], "open-panel");
  index = 0;
  render();
  document.body.dataset.state = "ready";
  showAnalysis(gameId, token, names);
}

export function startReplay() {
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
