// Shared by the play page and the replay viewer: cards, names, and the API.
// Plain ES module, no dependencies; the words are the chosen language's (words.js).

import { W } from "./words.js";

export const SUITS = {
  C: { symbol: "\u2663", name: W.suitNames.C, red: false },
  D: { symbol: "\u2666", name: W.suitNames.D, red: true },
  H: { symbol: "\u2665", name: W.suitNames.H, red: true },
  S: { symbol: "\u2660", name: W.suitNames.S, red: false },
};
export const RANKS = W.ranks;
export const RANK_NAMES = W.rankNames;
const RANK_ORDER = "ATKQJ";
const SUIT_ORDER = "SHCD"; // alternating colours in a sorted hand

export const REASONS = W.reasons;

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
      title: title || W.cardName(RANK_NAMES[code[0]], suit.name),
      "aria-label": W.cardName(RANK_NAMES[code[0]], suit.name),
    },
    corner("tl"),
    court
      ? el("span", { class: "pip court" }, el("b", {}, rank), el("i", {}, suit.symbol))
      : el("span", { class: "pip" }, suit.symbol),
    corner("br"),
  );
}

export function cardBack({ size = "" } = {}) {
  return el("div", { class: `card back ${size}`.trim(), "aria-label": W.faceDown });
}

/** Seat names for a game's players, as seen by `viewer` (0, 1 or null). */
export function seatNames(players, viewer) {
  return [0, 1].map((seat) => {
    const player = (players || []).find((p) => p.seat === seat) || {};
    const who = player.type === "bot" ? W.bot(player.level) : W.player(seat + 1);
    if (viewer === null || viewer === undefined) return who;
    return seat === viewer ? W.you : who;
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
    return `${p.title || W.refused} (${error.status})${code}: ${p.detail || ""}`;
  }
  return W.unreachable(error.message || error);
}

/** A description of an action: "plays K♥", or with `you` "play K♥". */
export function actionText(action, you = false) {
  return W.action(action, you, action.card && cardLabel(action.card), action.suit && suitLabel(action.suit));
}

/** Whether a seat's name is the viewer's own ("You"). */
export function isYou(name) {
  return name === W.you;
}

/** A verb after a seat's name: `verb("win", true)` is "win", else "wins" (per language). */
export function verb(name, you) {
  const [third, second] = W.verbs[name];
  return you ? second : third;
}
