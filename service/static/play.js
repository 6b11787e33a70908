// The play page: a game against a bot through the HTTP API.
//
// The loop: read the view; on our turn wait for a click on a legal action
// and post it; otherwise long-poll the event feed until the bot has moved.
// The seat token stays in this tab's sessionStorage.

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
const CURRENT_GAME = "schnapsen:game";
const POLL_SECONDS = 10;

let generation = 0; // a new game stops the loop of the previous one
let chooser = null; // resolves the click the loop waits for
let names = ["Player 1", "Player 2"];

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
  try {
    const seated = await api("POST", "/v1/games", {
      body: { variant, opponent: { type: "bot", level } },
    });
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

/** A refusal naming the known levels ("... (levels: a, b, c)") updates the select. */
function offerLevelsFrom(error) {
  const detail = (error && error.problem && error.problem.detail) || "";
  const match = /levels: ([^)]*)\)/.exec(detail);
  if (!match) return;
  const select = $("level");
  const chosen = select.value;
  select.replaceChildren(
    ...match[1].split(",").map((name) => el("option", { value: name.trim() }, `${name.trim()} bot`)),
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
  $("game-id").textContent = `game ${gameId}`;
  $("table").hidden = false;
  $("scores-panel").hidden = false;
  $("log-panel").hidden = false;
  $("layout").classList.remove("single");
  $("setup").style.order = 5;
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
  const you = (seat) => names[seat] === "You";
  const who = (seat) => names[seat];
  switch (event.type) {
    case "seat_taken":
      if (event.player === "bot") names[event.seat] = `Bot (${event.level})`;
      break;
    case "deal_started":
      logLine(`Deal ${event.number}: ${who(event.dealer)} ${you(event.dealer) ? "deal" : "deals"}, ` +
        `trump card ${cardLabel(event.trump_card)}`, "deal");
      break;
    case "action_taken": {
      let text = `${who(event.seat)} ${actionText(event.action, you(event.seat))}`;
      if (event.took) text += `, ${you(event.seat) ? "take" : "takes"} ${cardLabel(event.took)}`;
      if (event.trick) text += `: trick to ${you(event.trick.winner) ? "you" : who(event.trick.winner)}`;
      logLine(text);
      if (event.drew && event.drew.length) logLine(`You draw ${event.drew.map(cardLabel).join(" ")}`);
      if (event.turn_up_drawn) {
        const seat = event.turn_up_drawn.seat;
        logLine(`${who(seat)} ${you(seat) ? "take" : "takes"} the trump card ${cardLabel(event.turn_up_drawn.card)}`);
      }
      if (event.deal_result) logLine(resultText(event.deal_result), "result");
      if (event.game_winner !== undefined) {
        logLine(`Game over: ${who(event.game_winner)} ${you(event.game_winner) ? "win" : "wins"} the game`, "result");
      }
      break;
    }
    default:
      break;
  }
}

function resultText(result) {
  const winner = names[result.winner];
  const verb = winner === "You" ? "win" : "wins";
  return (
    `Deal ${result.number}: ${winner} ${verb} ${plural(result.game_points, "game point")} ` +
    `(${REASONS[result.reason] || result.reason}); card points ${result.card_points[0]}:${result.card_points[1]}`
  );
}

// -- drawing the table --------------------------------------------------------

function render(game, view) {
  const deal = view.deal;
  const me = view.seat;
  const opp = 1 - me;
  names = seatNames(view.players, me);
  const myTurn = view.status === "active" && view.to_move === me;
  document.body.dataset.version = view.version;

  // opponent: card backs, and the cards of their hand both have seen face up
  $("opponent-name").textContent = names[opp];
  $("opponent").classList.toggle("to-move", view.status === "active" && view.to_move === opp);
  const shown = deal ? deal.revealed_cards[opp] : [];
  const hidden = deal ? deal.opponent_hand_size - shown.length : 0;
  $("opponent-hand").replaceChildren(
    ...shown.map((code) => {
      const card = cardFace(code, { title: "seen by both players" });
      card.classList.add("public");
      return card;
    }),
    ...Array.from({ length: Math.max(0, hidden) }, () => cardBack()),
  );
  $("opponent-stat").textContent = deal ? seatStat(deal, opp) : "";
  $("my-name").textContent = names[me];
  $("my-stat").textContent = deal ? seatStat(deal, me) : "";

  renderStock(deal);
  renderTrick(view);
  renderTrump(deal);

  // the turn
  const turn = $("turn");
  if (view.status === "finished") {
    turn.className = "turn over";
    turn.textContent = view.winner === me ? "Game over: you won" : "Game over: you lost";
  } else if (myTurn) {
    turn.className = "turn yours";
    turn.textContent = yourTurnText(deal);
  } else {
    turn.className = "turn theirs";
    turn.textContent = `${names[opp]} is thinking\u2026`;
  }

  // my hand: legal cards are raised and clickable
  const legal = myTurn ? deal.legal_actions : [];
  const playable = new Map(legal.filter((a) => a.type === "play").map((a) => [a.card, a]));
  const hand = deal ? sortHand(deal.hand, deal.trump_suit) : [];
  const mineShown = new Set(deal ? deal.revealed_cards[me] : []);
  $("my-hand").replaceChildren(
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

  renderScores(view);
  renderEnd(game, view);
}

function seatStat(deal, seat) {
  const tricks = plural(deal.tricks_won[seat], "trick");
  return deal.card_points ? `${tricks} \u00b7 ${deal.card_points[seat]} points` : tricks;
}

function yourTurnText(deal) {
  const types = new Set(deal.legal_actions.map((a) => a.type));
  if (types.has("accept_last_trick")) return "Your turn: claim 66 or accept the last trick";
  if (deal.current_trick.length) return "Your turn: answer the trick";
  return "Your turn: lead a card";
}

function buttonLabel(action, deal) {
  const suit = (s) => el("span", { class: `s ${SUITS[s].red ? "red" : ""}` }, suitLabel(s));
  switch (action.type) {
    case "exchange_trump_jack":
      return ["Exchange the trump jack for ", cardLabel(deal.trump_card)];
    case "close_talon":
      return ["Close the talon"];
    case "declare_marriage":
      return ["Marriage ", suit(action.suit), ` (${deal.marriage_points[action.suit]})`];
    case "claim":
      return ["Claim 66 (go out)"];
    case "accept_last_trick":
      return ["Accept the last trick"];
    default:
      return [action.type];
  }
}

function renderStock(deal) {
  const stock = $("stock");
  if (!deal) {
    stock.replaceChildren();
    return;
  }
  const parts = [];
  if (deal.trump_card) {
    const trump = cardFace(deal.trump_card, { title: "the trump card, face up under the talon" });
    trump.classList.add("trump-card");
    parts.push(trump);
  }
  if (deal.talon_size > 0) {
    const layers = Math.min(deal.talon_size, 4);
    const pile = el("div", { class: "talon", dataset: { size: deal.talon_size } });
    for (let i = 0; i < layers; i++) {
      const back = cardBack();
      back.style.transform = `translate(${-i * 2}px, ${-i * 2}px)`;
      pile.append(back);
    }
    parts.push(pile);
  }
  let label;
  if (deal.closed_by !== null) label = `Talon closed by ${names[deal.closed_by]}`;
  else if (deal.talon_size > 0) label = `Talon: ${plural(deal.talon_size, "card")}`;
  else label = "Talon exhausted";
  if (deal.closed_by !== null) parts.push(el("div", { class: "closed-mark" }, "CLOSED"));
  parts.push(el("div", { class: "label", id: "talon-label" }, label));
  stock.classList.toggle("closed", deal.closed_by !== null);
  stock.replaceChildren(...parts);
}

function played(entry, { winner = false, me } = {}) {
  return el(
    "div",
    { class: `played ${entry.seat === me ? "down" : "up"}${winner ? " winner" : ""}` },
    cardFace(entry.card),
    names[entry.seat],
  );
}

function renderTrick(view) {
  const deal = view.deal;
  const me = view.seat;
  const trick = $("trick");
  const caption = $("trick-caption");
  const banner = $("deal-banner");
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
  if (last) banner.textContent = resultText(last);
  banner.classList.toggle("good", Boolean(last) && last.winner === me);

  if (deal.current_trick.length) {
    const lead = deal.current_trick[0];
    trick.replaceChildren(played(lead, { me }), el("div", { class: "slot" }));
    caption.textContent = `${names[lead.seat]} led ${cardLabel(lead.card)}`;
  } else if (deal.tricks.length) {
    const done = deal.tricks[deal.tricks.length - 1];
    trick.classList.add("last");
    trick.replaceChildren(...done.cards.map((c) => played(c, { winner: c.seat === done.winner, me })));
    caption.textContent = `Last trick: ${names[done.winner]}`;
  } else {
    trick.replaceChildren(el("div", { class: "slot" }), el("div", { class: "slot" }));
    const leader = 1 - deal.dealer;
    caption.textContent = `Deal ${deal.number}: ${names[leader]} ${names[leader] === "You" ? "lead" : "leads"}`;
  }
}

function renderTrump(deal) {
  const box = $("trump-info");
  if (!deal) {
    box.replaceChildren();
    return;
  }
  const suit = SUITS[deal.trump_suit];
  const lines = [
    el("span", { class: "small" }, "Trumps"),
    el("span", { class: `big ${suit.red ? "red" : "black"}`, id: "trump-suit", dataset: { suit: deal.trump_suit } }, suit.symbol),
    el("span", { class: "small" }, suit.name),
  ];
  for (const m of deal.marriages) {
    lines.push(el("div", { class: "small" }, `${names[m.seat]}: ${m.points} in ${suitLabel(m.suit)}`));
  }
  if (deal.exchange) {
    lines.push(el("div", { class: "small" }, `${names[deal.exchange.seat]} exchanged the jack`));
  }
  box.replaceChildren(...lines);
}

function renderScores(view) {
  $("scores").replaceChildren(
    ...[view.seat, 1 - view.seat].flatMap((seat) => [
      el("span", {}, names[seat]),
      el("span", { class: "gp", dataset: { seat } }, view.game_points[seat]),
    ]),
  );
  const deal = view.deal;
  $("deal-info").textContent = deal
    ? `Deal ${deal.number}, ${names[deal.dealer]} dealt. Game points count down from 7; ` +
      `${view.variant === "head" ? "count your card points in your head and claim 66" : "points are tracked"}.`
    : "";
  $("deals").replaceChildren(
    ...view.deals.map((d) =>
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
  headline.textContent = won ? "You won the game!" : `${names[view.winner]} won the game`;
  $("end-detail").textContent =
    `Game points left: ${names[view.seat]} ${view.game_points[view.seat]}, ` +
    `${names[1 - view.seat]} ${view.game_points[1 - view.seat]} after ${plural(view.deals.length, "deal")}.`;
  $("replay-link").href = `/replay/?game=${encodeURIComponent(game.id)}`;
}

// -- start ------------------------------------------------------------------

function init() {
  $("new-game").addEventListener("submit", createGame);
  $("again").addEventListener("click", () => {
    $("level").focus();
    $("setup").scrollIntoView({ block: "nearest" });
    $("new-game").requestSubmit();
  });
  const params = new URLSearchParams(location.search);
  const level = params.get("level");
  if (level) {
    if (![...$("level").options].some((o) => o.value === level)) {
      $("level").append(el("option", { value: level }, `${level} bot`));
    }
    $("level").value = level;
  }
  const resume = params.get("game") || sessionStorage.getItem(CURRENT_GAME);
  const token = resume && tokens.get(resume);
  if (token) play(resume, token);
  else if (params.get("game")) showProblem("This tab holds no seat in that game; start a new one.");
}

init();
