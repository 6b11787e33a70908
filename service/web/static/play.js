// The play page: a game against a bot, or a person who joins by a link, through the HTTP API.
//
// The loop: read the view; on our turn wait for a tap on a legal action
// and post it; otherwise long-poll the event feed until the other seat has
// moved. The seat token stays in this tab's sessionStorage.

import { SUITS, actionText, api, cardBack, cardFace, cardLabel, el, isYou, problemText, seatNames, sortHand, suitLabel, tokens, verb } from "./cards.js";
import { W } from "./words.js";
import { $, clearTable, dealResultText, emptySlot, playedCard, renderScores, renderStock, renderTrump, showTable } from "./table.js";

export const CURRENT_GAME = "schnapsen:game";
const POLL_SECONDS = 10;

let generation = 0; // a new game stops the loop of the previous one
let chooser = null; // resolves the click the loop waits for
let names = [W.player(1), W.player(2)];

function setState(state) {
  document.body.dataset.state = state;
}

function showProblem(error) {
  const box = $("problem");
  if (!error) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.hidden = false;
  box.textContent = typeof error === "string" ? error : problemText(error);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// -- starting ---------------------------------------------------------------

async function createGame(event) {
  event.preventDefault();
  showProblem(null);
  const before = document.body.dataset.state;
  setState("busy");
  $("start").disabled = true;
  const level = $("level").value;
  const variant = $("variant").value;
  const opponent = level === "human" ? { type: "human" } : { type: "bot", level };
  try {
    const seated = await api("POST", "/v1/games", { body: { variant, opponent } });
    tokens.set(seated.game_id, seated.token);
    sessionStorage.setItem(CURRENT_GAME, seated.game_id);
    history.replaceState(null, "", `/play/?game=${encodeURIComponent(seated.game_id)}`);
    play(seated.game_id, seated.token);
  } catch (error) {
    showProblem(error);
    offerLevelsFrom(error);
    setState(before); // a running game goes on
  } finally {
    $("start").disabled = false;
  }
}

/** The bot levels the server offers (GET /v1/bot/levels), weakest first, then a person. */
async function offerServerLevels() {
  let offered;
  try {
    offered = await api("GET", "/v1/bot/levels");
  } catch {
    return; // the page's own list stays
  }
  const select = $("level");
  const chosen = select.value;
  const human = [...select.options].find((o) => o.value === "human");
  const served = offered.levels.map((level) => level.name);
  // A level the link asked for stays selectable: the server's refusal names the real ones.
  const asked = chosen && chosen !== "human" && !served.includes(chosen) ? [el("option", { value: chosen }, W.levelOption(chosen))] : [];
  select.replaceChildren(
    ...offered.levels.map((level) => el("option", { value: level.name, title: level.description }, W.levelOption(level.name))),
    ...asked,
    ...(human ? [human] : []),
  );
  const names = [...select.options].map((o) => o.value);
  select.value = names.includes(chosen) ? chosen : names.includes("heuristic") ? "heuristic" : names[0];
}

/** A refusal naming the known levels ("... (levels: a, b, c)") updates the select. */
function offerLevelsFrom(error) {
  const detail = (error && error.problem && error.problem.detail) || "";
  const match = /levels: ([^)]*)\)/.exec(detail);
  if (!match) return;
  const select = $("level");
  const chosen = select.value;
  select.replaceChildren(
    ...match[1].split(",").map((name) => el("option", { value: name.trim() }, W.levelOption(name.trim()))),
  );
  const offered = [...select.options].map((o) => o.value);
  select.value = offered.includes(chosen) ? chosen : offered.includes("heuristic") ? "heuristic" : offered[0];
}

// -- the loop ---------------------------------------------------------------

async function play(gameId, token) {
  const mine = ++generation;
  chooser = null;
  const game = { id: gameId, token, logVersion: 0 };
  $("log").replaceChildren();
  $("game-id").textContent = W.gameId(gameId);
  $("top-hand").classList.add("backs");
  $("bottom-hand").classList.add("mine");
  showTable(["scores-panel", "log-panel"], "setup");
  $("end").hidden = true;

  let failures = 0;
  while (mine === generation) {
    let view;
    try {
      view = await api("GET", `/v1/games/${gameId}`, { token });
      names = seatNames(view.players, view.seat);
      await pullLog(game, 0);
      failures = 0;
    } catch (error) {
      if (mine !== generation) return;
      showProblem(error);
      if (error.status === 404 || error.status === 401) {
        sessionStorage.removeItem(CURRENT_GAME);
        setState("setup");
        return;
      }
      setState("error");
      await sleep(Math.min(10000, 1000 * 2 ** failures++));
      continue;
    }
    if (mine !== generation) return;
    render(game, view);
    if (view.status === "finished") {
      setState("finished");
      return;
    }
    if (view.seat !== null && view.to_move === view.seat && view.deal.legal_actions.length) {
      setState("your-turn");
      const action = await new Promise((resolve) => {
        chooser = resolve;
      });
      if (mine !== generation) return;
      setState("busy");
      try {
        await api("POST", `/v1/games/${gameId}/actions`, {
          token,
          body: { ...action, expected_version: view.version },
        });
        showProblem(null);
      } catch (error) {
        showProblem(error); // a stale or refused action changes nothing: read the view again
      }
    } else {
      setState("waiting");
      try {
        await pullLog(game, POLL_SECONDS);
      } catch (error) {
        showProblem(error);
        await sleep(1000);
      }
    }
  }
}

function choose(action) {
  if (!chooser || document.body.dataset.state !== "your-turn") return;
  const resolve = chooser;
  chooser = null;
  setState("busy");
  for (const node of document.querySelectorAll("[data-action]")) {
    node.classList.remove("legal");
    if (node.tagName === "BUTTON") node.disabled = true;
  }
  resolve(action);
}

/** The events after the last one logged; with `wait`, a long-poll. */
async function pullLog(game, wait) {
  const feed = await api(
    "GET",
    `/v1/games/${game.id}/events?after=${game.logVersion}&wait=${wait}`,
    { token: game.token },
  );
  for (const event of feed.events) {
    logEvent(event);
    game.logVersion = Math.max(game.logVersion, event.version);
  }
}

function logLine(text, cls) {
  const log = $("log");
  const item = el("li", { class: cls }, text);
  log.append(item);
  log.scrollTop = log.scrollHeight; // the newest move in sight, without scrolling the page
}

function logEvent(event) {
  const you = (seat) => isYou(names[seat]);
  const who = (seat) => names[seat];
  switch (event.type) {
    case "seat_taken":
      if (event.player === "bot") names[event.seat] = W.bot(event.level);
      break;
    case "deal_started":
      logLine(W.dealStarted({ number: event.number, name: who(event.dealer) }, verb("deal", you(event.dealer)),
        cardLabel(event.trump_card)), "deal");
      break;
    case "action_taken": {
      let text = `${who(event.seat)} ${actionText(event.action, you(event.seat))}`;
      if (event.took) text += W.tookCard(verb("take", you(event.seat)), cardLabel(event.took));
      if (event.trick) text += W.trickTo(you(event.trick.winner), who(event.trick.winner));
      logLine(text);
      // The turned-up trump card, when we take it, is among the cards we drew: it gets
      // its own line ("You take the trump card"), so the draw line names the others only.
      const turnUp = event.turn_up_drawn;
      const drew = (event.drew || []).filter((card) => !turnUp || card !== turnUp.card);
      if (drew.length) logLine(W.youDraw(drew.map(cardLabel).join(" ")));
      if (turnUp) {
        logLine(W.takesTrumpCard(who(turnUp.seat), verb("take", you(turnUp.seat)), cardLabel(turnUp.card)));
      }
      if (event.deal_result) logLine(dealResultText(event.deal_result, names), "result");
      if (event.game_winner !== undefined) {
        logLine(W.gameWon(who(event.game_winner), verb("win", you(event.game_winner))), "result");
      }
      break;
    }
    default:
      break;
  }
}

// -- drawing the table --------------------------------------------------------

function render(game, view) {
  const deal = view.deal;
  const me = view.seat;
  const opp = 1 - me;
  names = seatNames(view.players, me);
  const myTurn = view.status === "active" && view.to_move === me;
  document.body.dataset.version = view.version;

  renderInvite(game, view);
  // opponent: card backs, and the cards of their hand both have seen face up
  $("top-name").textContent = names[opp];
  $("top").classList.toggle("to-move", view.status === "active" && view.to_move === opp);
  const shown = deal ? deal.revealed_cards[opp] : [];
  const hidden = deal ? deal.opponent_hand_size - shown.length : 0;
  $("top-hand").replaceChildren(
    ...shown.map((code) => {
      const card = cardFace(code, { title: W.seenByBoth });
      card.classList.add("public");
      return card;
    }),
    ...Array.from({ length: Math.max(0, hidden) }, () => cardBack()),
  );
  $("top-stat").textContent = deal ? seatStat(deal, opp) : "";
  $("bottom-name").textContent = names[me];
  $("bottom-stat").textContent = deal ? seatStat(deal, me) : "";

  if (deal) {
    renderStock({ trumpCard: deal.trump_card, talonSize: deal.talon_size, closedBy: deal.closed_by }, names);
    renderTrick(view);
    const exchange = deal.exchange ? [W.exchangedJack(names[deal.exchange.seat])] : [];
    renderTrump(deal.trump_suit, deal.marriages, names, ...exchange);
  } else {
    clearTable();
  }

  // the turn
  const turn = $("turn");
  if (view.status === "finished") {
    turn.className = "turn over";
    turn.textContent = view.winner === me ? W.overWon : W.overLost;
  } else if (myTurn) {
    turn.className = "turn yours";
    turn.textContent = yourTurnText(deal);
  } else if (view.status === "waiting") {
    turn.className = "turn theirs";
    turn.textContent = W.waitingForJoin;
  } else {
    turn.className = "turn theirs";
    turn.textContent = W.thinking(names[opp]);
  }

  // my hand: legal cards are raised and clickable
  const legal = myTurn ? deal.legal_actions : [];
  const playable = new Map(legal.filter((a) => a.type === "play").map((a) => [a.card, a]));
  const hand = deal ? sortHand(deal.hand, deal.trump_suit) : [];
  const mineShown = new Set(deal ? deal.revealed_cards[me] : []);
  $("bottom-hand").replaceChildren(
    ...hand.map((code) => {
      const card = cardFace(code);
      if (mineShown.has(code)) card.classList.add("public");
      const action = playable.get(code);
      if (action) {
        card.classList.add("legal");
        card.dataset.action = JSON.stringify(action);
        card.setAttribute("role", "button");
        card.tabIndex = 0;
        card.addEventListener("click", () => choose(action));
        card.addEventListener("keydown", (e) => (e.key === "Enter" || e.key === " ") && choose(action));
      } else if (myTurn) {
        card.classList.add("illegal");
      }
      return card;
    }),
  );

  $("actions").replaceChildren(
    ...legal
      .filter((a) => a.type !== "play")
      .map((action) =>
        el(
          "button",
          { type: "button", class: "legal", dataset: { action: JSON.stringify(action) }, onclick: () => choose(action) },
          ...buttonLabel(action, deal),
        ),
      ),
  );

  renderSide(view);
  renderEnd(game, view);
}

function seatStat(deal, seat) {
  const tricks = W.tricks(deal.tricks_won[seat]);
  return deal.card_points ? W.seatPoints(tricks, deal.card_points[seat]) : tricks;
}

function yourTurnText(deal) {
  const types = new Set(deal.legal_actions.map((a) => a.type));
  if (types.has("accept_last_trick")) return W.turnAcceptOrClaim;
  if (deal.current_trick.length) return W.turnAnswer;
  return W.turnLead;
}

function buttonLabel(action, deal) {
  const suit = (s) => el("span", { class: `s ${SUITS[s].red ? "red" : ""}` }, suitLabel(s));
  switch (action.type) {
    case "exchange_trump_jack":
      return [W.buttonExchange, cardLabel(deal.trump_card)];
    case "close_talon":
      return [W.buttonClose];
    case "declare_marriage": {
      const points = deal.marriage_points[action.suit];
      return [W.buttonMarriage(points), suit(action.suit), ` (${points})`];
    }
    case "claim":
      return [W.buttonClaim];
    case "accept_last_trick":
      return [W.buttonAccept];
    default:
      return [action.type];
  }
}

function renderTrick(view) {
  const deal = view.deal;
  const me = view.seat;
  const trick = $("trick");
  const caption = $("caption");
  const banner = $("banner");
  trick.classList.remove("last");
  const last = view.deals[view.deals.length - 1];
  if (view.status === "finished" || !deal) {
    trick.replaceChildren();
    caption.textContent = "";
    banner.hidden = true;
    return;
  }
  // the result of the deal before, until the new deal's first trick is done
  banner.hidden = !(last && deal.tricks.length === 0);
  if (last) banner.textContent = dealResultText(last, names);
  banner.classList.toggle("good", Boolean(last) && last.winner === me);

  if (deal.current_trick.length) {
    const lead = deal.current_trick[0];
    trick.replaceChildren(playedCard(lead, { bottom: me, names }), emptySlot());
    caption.textContent = W.led(names[lead.seat], cardLabel(lead.card));
  } else if (deal.tricks.length) {
    const done = deal.tricks[deal.tricks.length - 1];
    trick.classList.add("last");
    trick.replaceChildren(...done.cards.map((c) => playedCard(c, { winner: c.seat === done.winner, bottom: me, names })));
    caption.textContent = W.lastTrick(names[done.winner]);
  } else {
    trick.replaceChildren(emptySlot(), emptySlot());
    const leader = 1 - deal.dealer;
    caption.textContent = W.dealLead(deal.number, names[leader], verb("lead", isYou(names[leader])));
  }
}

function renderSide(view) {
  renderScores([view.seat, 1 - view.seat], view.game_points, view.deals, names);
  const deal = view.deal;
  $("deal-info").textContent = deal
    ? W.dealInfo(deal.number, names[deal.dealer], view.variant === "head")
    : "";
}

/** While seat 1 is empty the creator's view carries the invite: the link to share. */
function renderInvite(game, view) {
  const panel = $("invite-panel");
  panel.hidden = !view.invite;
  if (!view.invite) return;
  const url = `${location.origin}/join/?game=${encodeURIComponent(game.id)}&invite=${encodeURIComponent(view.invite)}`;
  $("join-link").href = url;
  $("join-link").textContent = url;
}

function renderEnd(game, view) {
  const end = $("end");
  if (view.status !== "finished") {
    end.hidden = true;
    return;
  }
  end.hidden = false;
  const won = view.winner === view.seat;
  const headline = $("end-headline");
  headline.className = `headline ${won ? "won" : "lost"}`;
  headline.textContent = won ? W.youWonGame : W.wonGame(names[view.winner]);
  $("end-detail").textContent = W.pointsLeft(
    `${names[view.seat]} ${view.game_points[view.seat]}`,
    `${names[1 - view.seat]} ${view.game_points[1 - view.seat]}`,
    W.deals(view.deals.length),
  );
  $("replay-link").href = `/replay/?game=${encodeURIComponent(game.id)}`;
}

// -- start ------------------------------------------------------------------

export function startPlay() {
  document.body.dataset.state = "setup";
  $("new-game").addEventListener("submit", createGame);
  $("copy-link").addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText($("join-link").href));
  $("again").addEventListener("click", () => {
    $("level").focus();
    $("setup").scrollIntoView({ block: "nearest" });
    $("new-game").requestSubmit();
  });
  const params = new URLSearchParams(location.search);
  const level = params.get("level");
  for (const option of $("level").options) {
    if (option.value !== "human") option.textContent = W.levelOption(option.value);
  }
  offerServerLevels().then(() => {
    if (level && [...$("level").options].some((o) => o.value === level)) $("level").value = level;
  });
  if (level) {
    if (![...$("level").options].some((o) => o.value === level)) {
      $("level").append(el("option", { value: level }, W.levelOption(level)));
    }
    $("level").value = level;
  }
  const resume = params.get("game") || sessionStorage.getItem(CURRENT_GAME);
  const token = resume && tokens.get(resume);
  if (token) play(resume, token);
  else if (params.get("game")) showProblem(W.noSeat);
}
