// Shared by the play page and the replay viewer: cards, names, and the API.
// Plain ES module, no dependencies.

export const SUITS = {
  C: { symbol: "\u2663", name: "clubs", red: false },
  D: { symbol: "\u2666", name: "diamonds", red: true },
  H: { symbol: "\u2665", name: "hearts", red: true },
  S: { symbol: "\u2660", name: "spades", red: false },
};
export const RANKS = { A: "A", T: "10", K: "K", Q: "Q", J: "J" };
export const RANK_NAMES = { A: "ace", T: "ten", K: "king", Q: "queen", J: "jack" };
const RANK_ORDER = "ATKQJ";
const SUIT_ORDER = "SHCD"; // alternating colours in a sorted hand

export const REASONS = {
  went_out: "went out with 66",
  false_claim: "false claim by the opponent",
  last_trick: "won the last trick",
  closer_went_out: "closed the talon and went out",
  closer_false_claim: "the closer claimed without 66",
  closer_ran_out: "the closer did not reach 66",
  closer_opponent_went_out: "went out before the closer",
};

/** "KH" -> "K♥", "TS" -> "10♠". */
export function cardLabel(code) {
  return RANKS[code[0]] + SUITS[code[1]].symbol;
}

export function suitLabel(suit) {
  return SUITS[suit].symbol;
}

export function isRed(code) {
  return SUITS[code[code.length - 1]].red;
}

/** A hand sorted by suit (trumps first), then rank high to low. */
export function sortHand(cards, trumpSuit) {
  const suitRank = (s) => (s === trumpSuit ? -1 : SUIT_ORDER.indexOf(s));
  return [...cards].sort(
    (a, b) => suitRank(a[1]) - suitRank(b[1]) || RANK_ORDER.indexOf(a[0]) - RANK_ORDER.indexOf(b[0]),
  );
}

/** Build an element: el("div", {class: "x", dataset: {a: 1}, onclick: f}, child, "text"). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A face-up card as it looks: rank and suit in two corners, the suit large in the middle. */
export function cardFace(code, { size = "", title } = {}) {
  const rank = RANKS[code[0]];
  const suit = SUITS[code[1]];
  const court = "KQJ".includes(code[0]);
  const corner = (cls) => el("span", { class: `corner ${cls}` }, el("b", {}, rank), el("i", {}, suit.symbol));
  return el(
    "div",
    {
      class: `card face ${suit.red ? "red" : "black"} ${size}`.trim(),
      dataset: { card: code },
      title: title || `${RANK_NAMES[code[0]]} of ${suit.name}`,
      "aria-label": `${RANK_NAMES[code[0]]} of ${suit.name}`,
    },
    corner("tl"),
    court
      ? el("span", { class: "pip court" }, el("b", {}, rank), el("i", {}, suit.symbol))
      : el("span", { class: "pip" }, suit.symbol),
    corner("br"),
  );
}

export function cardBack({ size = "" } = {}) {
  return el("div", { class: `card back ${size}`.trim(), "aria-label": "a card, face down" });
}

/** Seat names for a game's players, as seen by `viewer` (0, 1 or null). */
export function seatNames(players, viewer) {
  return [0, 1].map((seat) => {
    const player = (players || []).find((p) => p.seat === seat) || {};
    const who = player.type === "bot" ? `Bot (${player.level})` : `Player ${seat + 1}`;
    if (viewer === null || viewer === undefined) return who;
    return seat === viewer ? "You" : who;
  });
}

/** Where a game's seat token lives: this tab only. */
export const tokens = {
  get(gameId) {
    return sessionStorage.getItem(`schnapsen:token:${gameId}`);
  },
  set(gameId, token) {
    sessionStorage.setItem(`schnapsen:token:${gameId}`, token);
  },
};

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

/** One call of the HTTP API; resolves to the JSON body, rejects with ApiError. */
export async function api(method, path, { token, body, signal } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    cache: "no-store",
  });
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 200) };
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** The problem of a refused request as one line for people. */
export function problemText(error) {
  if (error instanceof ApiError) {
    const p = error.problem;
    const code = p.code ? ` [${p.code}]` : "";
    return `${p.title || "Refused"} (${error.status})${code}: ${p.detail || ""}`;
  }
  return `Could not reach the server: ${error.message || error}`;
}

/** A description of an action: "plays K♥", or with `you` "play K♥". */
export function actionText(action, you = false) {
  const v = (third, second) => (you ? second : third);
  switch (action.type) {
    case "play":
      return `${v("plays", "play")} ${cardLabel(action.card)}`;
    case "exchange_trump_jack":
      return `${v("exchanges", "exchange")} the trump jack`;
    case "close_talon":
      return `${v("closes", "close")} the talon`;
    case "declare_marriage":
      return `${v("declares", "declare")} the marriage in ${suitLabel(action.suit)}`;
    case "claim":
      return `${v("claims", "claim")} 66`;
    case "accept_last_trick":
      return `${v("accepts", "accept")} the last trick`;
    default:
      return action.type;
  }
}

export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
