// The words of the pages, one table per language: English and German (Austria).
//
// The API speaks in codes ("KH", "close_talon", "went_out"); these tables say
// them in a person's words. The language is the address's ?lang= (remembered
// in localStorage), else the one remembered, else the browser's first one we
// have (navigator.languages: what it sends as Accept-Language), else English.
// The pages' fixed text is written in English in table.html; each element
// with data-w="key" takes the chosen table's `page[key]` when it has one.

export const LANGUAGES = { en: "English", de: "Deutsch" };
export const STORED_LANGUAGE = "schnapsen:lang";

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
/** A time of day (HH:MM, the reader's own zone) from seconds since the epoch. */
const clockTime = (seconds) =>
  new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

const EN = {
  you: "You",
  player: (n) => `Player ${n}`,
  bot: (level) => `Bot (${level})`,
  levelOption: (level) => `${level} bot`,
  ranks: { A: "A", T: "10", K: "K", Q: "Q", J: "J" },
  rankNames: { A: "ace", T: "ten", K: "king", Q: "queen", J: "jack" },
  suitNames: { C: "clubs", D: "diamonds", H: "hearts", S: "spades" },
  cardName: (rank, suit) => `${rank} of ${suit}`,
  faceDown: "a card, face down",
  reasons: {
    went_out: "went out with 66",
    false_claim: "false claim by the opponent",
    last_trick: "won the last trick",
    closer_went_out: "closed the talon and went out",
    closer_false_claim: "the closer claimed without 66",
    closer_ran_out: "the closer did not reach 66",
    closer_opponent_went_out: "went out before the closer",
  },
  refused: "Refused",
  unreachable: (why) => `Could not reach the server: ${why}`,
  /** A seat's action after its name: "plays K♥", or with `you` "play K♥". */
  action(action, you, card, suit) {
    const v = (third, second) => (you ? second : third);
    switch (action.type) {
      case "play":
        return `${v("plays", "play")} ${card}`;
      case "exchange_trump_jack":
        return `${v("exchanges", "exchange")} the trump jack`;
      case "close_talon":
        return `${v("closes", "close")} the talon`;
      case "declare_marriage":
        return `${v("declares", "declare")} the marriage in ${suit}`;
      case "claim":
        return `${v("claims", "claim")} 66`;
      case "accept_last_trick":
        return `${v("accepts", "accept")} the last trick`;
      default:
        return action.type;
    }
  },
  verbs: {
    deal: ["deals", "deal"],
    lead: ["leads", "lead"],
    win: ["wins", "win"],
    take: ["takes", "take"],
    draw: ["draws", "draw"],
  },
  tricks: (n) => plural(n, "trick", "tricks"),
  cards: (n) => plural(n, "card", "cards"),
  deals: (n) => plural(n, "deal", "deals"),
  gamePoints: (n) => plural(n, "game point", "game points"),
  // the table
  trumpCardTitle: "the trump card, face up under the talon",
  talonClosedBy: (name) => `Talon closed by ${name}`,
  talonCards: (n) => `Talon: ${plural(n, "card", "cards")}`,
  talonExhausted: "Talon exhausted",
  closedMark: "CLOSED",
  trumps: "Trumps",
  cardPoints: (a, b) => `card points ${a}:${b}`,
  /** "You win deal 2: 3 game points, ..."; `verb` is "win" or "wins". */
  dealResult: (winner, verb, r, reason, points) =>
    `${winner} ${verb} deal ${r.number}: ${points}, ${reason}; card points ${r.card_points[0]}:${r.card_points[1]}`,
  // the play page
  dealStarted: (who, verb, card) => `Deal ${who.number}: ${who.name} ${verb}, trump card ${card}`,
  tookCard: (verb, card) => `, ${verb} ${card}`,
  trickTo: (you, name) => `: trick to ${you ? "you" : name}`,
  youDraw: (cards) => `You draw ${cards}`,
  takesTrumpCard: (name, verb, card) => `${name} ${verb} the trump card ${card}`,
  gameWon: (name, verb) => `Game over: ${name} ${verb} the game`,
  seenByBoth: "seen by both players",
  exchangedJack: (name) => `${name} exchanged the jack`,
  overWon: "Game over: you won",
  overLost: "Game over: you lost",
  waitingForJoin: "Waiting for your opponent to join\u2026",
  thinking: (name) => `${name} is thinking\u2026`,
  seatPoints: (tricks, points) => `${tricks} \u00b7 ${points} points`,
  turnAcceptOrClaim: "Your turn: claim 66 or accept the last trick",
  turnAnswer: "Your turn: answer the trick",
  turnLead: "Your turn: lead a card",
  buttonExchange: "Exchange the trump jack for ",
  buttonClose: "Close the talon",
  buttonMarriage: () => "Marriage ",
  buttonClaim: "Claim 66 (go out)",
  buttonAccept: "Accept the last trick",
  led: (name, card) => `${name} led ${card}`,
  lastTrick: (name) => `Last trick: ${name}`,
  dealLead: (number, name, verb) => `Deal ${number}: ${name} ${verb}`,
  dealInfo: (number, dealer, head) =>
    `Deal ${number}, ${dealer} dealt. Game points count down from 7; ` +
    `${head ? "count your card points in your head and claim 66" : "points are tracked"}.`,
  youWonGame: "You won the game!",
  wonGame: (name) => `${name} won the game`,
  pointsLeft: (a, b, deals) => `Game points left: ${a}, ${b} after ${deals}.`,
  noSeat: "This tab holds no seat in that game; start a new one.",
  gameId: (id) => `game ${id}`,
  // the replay viewer
  seat: (n) => `Seat ${n}`,
  bothDraw: "Both draw a card",
  captionDeal: (number, dealer, dealVerb, leader, leadVerb) =>
    `Deal ${number}: ${dealer} ${dealVerb}, ${leader} ${leadVerb}`,
  captionTrick: (number, name, verb) => `Trick ${number}: ${name} ${verb}`,
  captionResult: (number) => `Deal ${number} is over`,
  now: "Now",
  replayYouWon: "You won the game",
  replayPointsLeft: (a, b, deals) => `Game points left: ${a}, ${b}, after ${deals}.`,
  dealTricks: (number) => `Deal ${number}: tricks`,
  whereDeal: (number) => `Deal ${number}: the cards`,
  whereTrick: (number, trick) => `Deal ${number}, trick ${trick}`,
  whereResult: (number) => `Deal ${number}: result`,
  whereGame: "Game over",
  whereNow: (number) => `Deal ${number}: now`,
  visibleAll: "The game is over: every deal's cards are shown.",
  visibleSpectator: "A spectator's replay: hands stay hidden until the game is over.",
  visibleOwn: "The game is running: you see your own cards only.",
  noDeal: "This game has no deal yet.",
  // the analysis
  analysisFailed: "the analysis failed",
  labels: { best: "best", good: "good", inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder", forced: "forced" },
  playerErrors: (p) => `${p.inaccuracies} inaccuracies \u00b7 ${p.mistakes} mistakes \u00b7 ${p.blunders} blunders`,
  lossChart: (name) => `loss per decision of ${name}`,
  barTitle: (d, label) => `deal ${d.deal}, trick ${d.trick}: ${label} (${d.loss.toFixed(2)})`,
  decisionWhere: (d) => `D${d.deal} T${d.trick}`,
  best: "best",
  thresholds: (t, level) =>
    `Labels by loss in game points: inaccuracy from ${t.inaccuracy}, mistake from ${t.mistake}, ` +
    `blunder from ${t.blunder}. Analysed by the ${level} bot.`,
  // the join page
  joinNoLink: "This link names no game and invite: ask for the link again.",
  joinAbout: (id) => `You were invited to game ${id}: take the second seat and play.`,
  // the games in play and the live board
  liveRated: "rated",
  liveCasual: "casual",
  liveRating: (rating) => `rating ${rating}`,
  liveVersion: (version) => `move ${version}`,
  featured: "Featured game",
  watchToMove: (name) => `${name} to move`,
  watchWaiting: "Waiting for the second player\u2026",
  watchOver: "Game over",
  watchNoGame: "This address names no game: open a game from the list of games in play.",
  // a tournament's page
  tournamentFacts: (t) =>
    `${{ created: "entries open", started: "being played", finished: "over" }[t.status] || t.status}` +
    (t.kind === "arena"
      ? ` · arena until ${clockTime(t.ends_at)} · ${plural(t.round, "pairing", "pairings")}`
      : ` · round ${t.round} of ${t.rounds}`) +
    ` · ${plural(t.players, "player", "players")}`,
  standingsWhere: (first, last, total) => `${first}–${last} of ${total}`,
  // pages.js
  pages: {
    play: ["", "play against a bot or a friend"],
    replay: ["replay", "replay"],
    join: ["join", "join a game"],
    live: ["games in play", "games in play"],
    watch: ["live board", "live board"],
    tournament: ["tournament", "tournament"],
  },
  page: {}, // the fixed text of table.html is English as written
};

const DE = {
  you: "Du",
  player: (n) => `Spieler ${n}`,
  bot: (level) => `Bot (${LEVELS_DE[level] || level})`,
  levelOption: (level) => `Bot: ${LEVELS_DE[level] || level}`,
  ranks: { A: "A", T: "10", K: "K", Q: "O", J: "U" },
  rankNames: { A: "Ass", T: "Zehner", K: "König", Q: "Ober", J: "Unter" },
  suitNames: { C: "Kreuz", D: "Karo", H: "Herz", S: "Pik" },
  cardName: (rank, suit) => `${suit}-${rank}`,
  faceDown: "eine Karte, verdeckt",
  reasons: {
    went_out: "mit 66 hinaus",
    false_claim: "falsch angesagt vom Gegner",
    last_trick: "letzter Stich",
    closer_went_out: "zugedreht und hinaus",
    closer_false_claim: "zugedreht, ohne 66 angesagt",
    closer_ran_out: "zugedreht, 66 nicht erreicht",
    closer_opponent_went_out: "vor dem Zudrehenden hinaus",
  },
  refused: "Abgelehnt",
  unreachable: (why) => `Der Server ist nicht erreichbar: ${why}`,
  action(action, you, card, suit) {
    const v = (third, second) => (you ? second : third);
    switch (action.type) {
      case "play":
        return `${v("spielt", "spielst")} ${card}`;
      case "exchange_trump_jack":
        return `${v("tauscht", "tauschst")} den Trumpf-Unter`;
      case "close_talon":
        return `${v("dreht", "drehst")} zu`;
      case "declare_marriage":
        return `${v("sagt", "sagst")} das Paar in ${suit} an`;
      case "claim":
        return `${v("sagt", "sagst")} 66 an`;
      case "accept_last_trick":
        return `${v("nimmt", "nimmst")} den letzten Stich`;
      default:
        return action.type;
    }
  },
  verbs: {
    deal: ["gibt", "gibst"],
    lead: ["spielt aus", "spielst aus"],
    win: ["gewinnt", "gewinnst"],
    take: ["nimmt", "nimmst"],
    draw: ["zieht", "ziehst"],
  },
  tricks: (n) => plural(n, "Stich", "Stiche"),
  cards: (n) => plural(n, "Karte", "Karten"),
  deals: (n) => plural(n, "Runde", "Runden"),
  gamePoints: (n) => plural(n, "Spielpunkt", "Spielpunkte"),
  trumpCardTitle: "die Trumpfkarte, offen unter dem Stock",
  talonClosedBy: (name) => `Zugedreht von ${name === "Du" ? "dir" : name}`,
  talonCards: (n) => `Stock: ${plural(n, "Karte", "Karten")}`,
  talonExhausted: "Stock aufgebraucht",
  closedMark: "ZU",
  trumps: "Trumpf",
  cardPoints: (a, b) => `Augen ${a}:${b}`,
  dealResult: (winner, verb, r, reason, points) =>
    `${winner} ${verb} Runde ${r.number}: ${points}, ${reason}; Augen ${r.card_points[0]}:${r.card_points[1]}`,
  dealStarted: (who, verb, card) => `Runde ${who.number}: ${who.name} ${verb}, Trumpfkarte ${card}`,
  tookCard: (verb, card) => `, ${verb} ${card}`,
  trickTo: (you, name) => `: Stich für ${you ? "dich" : name}`,
  youDraw: (cards) => `Du ziehst ${cards}`,
  takesTrumpCard: (name, verb, card) => `${name} ${verb} die Trumpfkarte ${card}`,
  gameWon: (name, verb) => `Partie aus: ${name} ${verb} die Partie`,
  seenByBoth: "von beiden gesehen",
  exchangedJack: (name) => `${name} hat den Unter getauscht`,
  overWon: "Partie aus: gewonnen",
  overLost: "Partie aus: verloren",
  waitingForJoin: "Warte, bis dein Gegner beitritt\u2026",
  thinking: (name) => `${name} denkt nach\u2026`,
  seatPoints: (tricks, points) => `${tricks} \u00b7 ${points} Augen`,
  turnAcceptOrClaim: "Du bist dran: 66 ansagen oder den letzten Stich nehmen",
  turnAnswer: "Du bist dran: gib eine Karte zu",
  turnLead: "Du bist dran: spiel eine Karte aus",
  buttonExchange: "Trumpf-Unter tauschen gegen ",
  buttonClose: "Zudrehen",
  buttonMarriage: (points) => (points === 40 ? "Vierziger " : "Zwanziger "),
  buttonClaim: "66 ansagen (hinaus)",
  buttonAccept: "Letzten Stich nehmen",
  led: (name, card) => `${name} ${name === "Du" ? "hast" : "hat"} ${card} ausgespielt`,
  lastTrick: (name) => `Letzter Stich: ${name}`,
  dealLead: (number, name, verb) => `Runde ${number}: ${name} ${verb}`,
  dealInfo: (number, dealer, head) =>
    `Runde ${number}, ${dealer === "Du" ? "du hast" : `${dealer} hat`} gegeben. Die Spielpunkte zählen von 7 hinunter; ` +
    `${head ? "zähl deine Augen im Kopf und sag 66 an" : "die Augen werden mitgezählt"}.`,
  youWonGame: "Du hast die Partie gewonnen!",
  wonGame: (name) => `${name} hat die Partie gewonnen`,
  pointsLeft: (a, b, deals) => `Spielpunkte übrig: ${a}, ${b} nach ${deals}.`,
  noSeat: "Dieser Tab hat keinen Platz in dieser Partie; fang eine neue an.",
  gameId: (id) => `Partie ${id}`,
  seat: (n) => `Platz ${n}`,
  bothDraw: "Beide ziehen eine Karte",
  captionDeal: (number, dealer, dealVerb, leader, leadVerb) =>
    `Runde ${number}: ${dealer} ${dealVerb}, ${leader} ${leadVerb}`,
  captionTrick: (number, name, verb) => `Stich ${number}: ${name} ${verb}`,
  captionResult: (number) => `Runde ${number} ist vorbei`,
  now: "Jetzt",
  replayYouWon: "Du hast die Partie gewonnen",
  replayPointsLeft: (a, b, deals) => `Spielpunkte übrig: ${a}, ${b}, nach ${deals}.`,
  dealTricks: (number) => `Runde ${number}: Stiche`,
  whereDeal: (number) => `Runde ${number}: die Karten`,
  whereTrick: (number, trick) => `Runde ${number}, Stich ${trick}`,
  whereResult: (number) => `Runde ${number}: Ergebnis`,
  whereGame: "Partie aus",
  whereNow: (number) => `Runde ${number}: jetzt`,
  visibleAll: "Die Partie ist aus: alle Karten jeder Runde sind zu sehen.",
  visibleSpectator: "Zuschauer: die Hände bleiben verdeckt, bis die Partie aus ist.",
  visibleOwn: "Die Partie läuft: du siehst nur deine eigenen Karten.",
  noDeal: "In dieser Partie wurde noch nicht gegeben.",
  analysisFailed: "die Auswertung ist fehlgeschlagen",
  labels: { best: "bester Zug", good: "gut", inaccuracy: "Ungenauigkeit", mistake: "Fehler", blunder: "grober Fehler", forced: "erzwungen" },
  playerErrors: (p) => `${p.inaccuracies} Ungenauigkeiten \u00b7 ${p.mistakes} Fehler \u00b7 ${p.blunders} grobe Fehler`,
  lossChart: (name) => `Verlust je Entscheidung: ${name}`,
  barTitle: (d, label) => `Runde ${d.deal}, Stich ${d.trick}: ${label} (${d.loss.toFixed(2)})`,
  decisionWhere: (d) => `R${d.deal} S${d.trick}`,
  best: "am besten",
  thresholds: (t, level) =>
    `Einstufung nach Verlust in Spielpunkten: Ungenauigkeit ab ${t.inaccuracy}, Fehler ab ${t.mistake}, ` +
    `grober Fehler ab ${t.blunder}. Ausgewertet vom Bot (${LEVELS_DE[level] || level}).`,
  joinNoLink: "Dieser Link nennt keine Partie und keine Einladung: bitte um den Link noch einmal.",
  joinAbout: (id) => `Du bist zur Partie ${id} eingeladen: nimm den zweiten Platz und spiel.`,
  liveRated: "gewertet",
  liveCasual: "ungewertet",
  liveRating: (rating) => `Wertung ${rating}`,
  liveVersion: (version) => `Zug ${version}`,
  featured: "Partie im Blick",
  watchToMove: (name) => `${name} ist am Zug`,
  watchWaiting: "Wartet auf den zweiten Spieler\u2026",
  watchOver: "Die Partie ist aus",
  watchNoGame: "Diese Adresse nennt keine Partie: öffne eine aus der Liste der laufenden Partien.",
  tournamentFacts: (t) =>
    `${{ created: "Anmeldung offen", started: "läuft", finished: "beendet" }[t.status] || t.status}` +
    (t.kind === "arena"
      ? ` · Arena bis ${clockTime(t.ends_at)} · ${plural(t.round, "Paarung", "Paarungen")}`
      : ` · Runde ${t.round} von ${t.rounds}`) +
    ` · ${plural(t.players, "Spieler", "Spieler")}`,
  standingsWhere: (first, last, total) => `${first}–${last} von ${total}`,
  pages: {
    play: ["", "gegen einen Bot oder zu zweit spielen"],
    replay: ["Wiederholung", "Wiederholung"],
    join: ["beitreten", "einer Partie beitreten"],
    live: ["laufende Partien", "laufende Partien"],
    watch: ["Live-Tisch", "Live-Tisch"],
    tournament: ["Turnier", "Turnier"],
  },
  page: {
    "nav-play": "Spielen",
    "end-replay": "Partie nachspielen",
    again: "Neue Partie",
    prev: "\u25c0 zurück",
    next: "weiter \u25b6",
    "prev-label": "ein Schritt zurück",
    "next-label": "ein Schritt weiter",
    "table-label": "der Kartentisch",
    "new-game": "Neue Partie",
    about:
      "Schnapsen, das österreichische Kartenspiel zu zweit: 20 Karten (Ass, Zehner, König, Ober, Unter); " +
      "wer zuerst 66 Augen hat, gewinnt die Runde; eine Partie (ein Bummerl) zählt von 7 Spielpunkten hinunter. " +
      "Du sitzt unten, dein Gegner gegenüber.",
    opponent: "Gegner",
    "level-human": "ein Mensch (Link teilen)",
    counting: "Zählen",
    "variant-head": "im Kopf (66 ansagen)",
    "variant-tracked": "mitgezählt (Augen sichtbar)",
    start: "Karten geben",
    invite: "Lade deinen Gegner ein",
    "invite-hint": "Schick diesen Link dem anderen Spieler; die Partie beginnt, wenn er beitritt.",
    "copy-link": "Link kopieren",
    join: "Einer Partie beitreten",
    "join-about": "Du bist zu einer Partie Schnapsen eingeladen: nimm den zweiten Platz.",
    "join-button": "Platz nehmen",
    replay: "Wiederholung",
    "game-input": "Partie-Nummer",
    show: "Zeigen",
    "replay-hint": "Blättere mit den Knöpfen oder den Pfeiltasten (\u2190 \u2192, Pos1, Ende).",
    scores: "Spielpunkte",
    deals: "Runden",
    "deals-winner": "Sieger",
    "deals-points": "Pkt.",
    "deals-how": "wie",
    analysis: "Auswertung",
    "analysis-hint":
      "Jede Entscheidung bewertet nach dem, was der Spieler damals wusste (der Experten-Bot), in Spielpunkten; " +
      "der Balken zeigt, was der Zug gegen den besten gekostet hat.",
    analyse: "Partie auswerten",
    moves: "Züge",
    tricks: "Stiche",
    language: "Sprache",
    "nav-live": "Zuschauen",
    live: "Laufende Partien",
    "live-hint": "Die Partien deiner App, die gerade gespielt werden, die höchst bewerteten zuerst. Tipp eine an, um ihren Tisch zu sehen.",
    "live-key": "Client-Schlüssel oder Spieler-Token",
    "live-pool": "Wertungsgruppe",
    "live-every-pool": "alle Gruppen",
    "live-min": "Niedrigste Wertung",
    "live-empty": "Gerade wird keine Partie gespielt.",
    "live-more": "Weitere Partien",
    watch: "Live-Tisch",
    "watch-hint": "Die Sicht eines Zuschauers: beide Hände bleiben verdeckt; der Tisch folgt jedem Zug, sobald er gespielt ist.",
    "watch-list": "Alle laufenden Partien",
    tournament: "Turnier",
    "tournament-hint": "Die Tabelle und die Tische, an denen gerade gespielt wird, alle paar Sekunden neu gelesen. Tipp einen Tisch an, um zuzusehen.",
    "tournament-id": "Turnier-Nummer",
    standings: "Tabelle",
    "standings-player": "Spieler",
    "standings-points": "Pkt.",
    "standings-games": "Partien",
    "standings-empty": "Noch hat sich niemand angemeldet.",
    "tournament-boards": "Tische im Spiel",
    "tournament-no-boards": "Gerade wird an keinem Tisch gespielt.",
  },
};

const LEVELS_DE = { random: "Zufall", beginner: "Anfänger", novice: "Neuling", heuristic: "Heuristik", expert: "Experte" };

/** Every table by its language; each has every key of the English one. */
export const TABLES = { en: EN, de: DE };

/** The language of this page: ?lang=, else the one remembered, else the browser's. */
function chosenLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && asked in TABLES) {
    remember(asked);
    return asked;
  }
  const stored = recalled();
  if (stored in TABLES) return stored;
  for (const tag of navigator.languages || [navigator.language || ""]) {
    const primary = tag.toLowerCase().split("-")[0];
    if (primary in TABLES) return primary;
  }
  return "en";
}

function remember(lang) {
  try {
    localStorage.setItem(STORED_LANGUAGE, lang);
  } catch {
    // storage refused (a private window): the choice lasts this page only
  }
}

function recalled() {
  try {
    return localStorage.getItem(STORED_LANGUAGE);
  } catch {
    return null;
  }
}

export const lang = chosenLanguage();
/** The words of the chosen language. */
export const W = TABLES[lang];

/** Another language, chosen on the page: remembered, and the page drawn again in it. */
export function switchLanguage(to) {
  if (!(to in TABLES) || to === lang) return;
  remember(to);
  const url = new URL(location.href);
  if (url.searchParams.has("lang")) url.searchParams.set("lang", to);
  location.replace(url.toString());
}

/** The fixed text of table.html in the chosen language: data-w, data-w-label, data-w-placeholder. */
export function translatePage(root = document) {
  document.documentElement.lang = lang;
  for (const node of root.querySelectorAll("[data-w]")) {
    const text = W.page[node.dataset.w];
    if (text !== undefined) node.textContent = text;
  }
  for (const node of root.querySelectorAll("[data-w-label]")) {
    const text = W.page[node.dataset.wLabel];
    if (text !== undefined) node.setAttribute("aria-label", text);
  }
}
