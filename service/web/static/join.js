// The join page: /join/?game=<id>&invite=<invite>, the link a game's creator shares.
// One tap takes seat 1; the game is then played on the play page with this tab's token.

import { api, problemText, tokens } from "./cards.js";
import { CURRENT_GAME } from "./play.js";
import { $, showProblem } from "./table.js";
import { W } from "./words.js";

function goPlay(gameId) {
  sessionStorage.setItem(CURRENT_GAME, gameId);
  location.assign(`/play/?game=${encodeURIComponent(gameId)}`);
}

async function join(gameId, invite) {
  $("join").disabled = true;
  document.body.dataset.state = "busy";
  try {
    const seated = await api("POST", `/v1/games/${encodeURIComponent(gameId)}/join`, { body: { invite } });
    tokens.set(seated.game_id, seated.token);
    goPlay(seated.game_id);
  } catch (error) {
    showProblem(problemText(error));
    document.body.dataset.state = "error";
    $("join").disabled = false;
  }
}

export function startJoin() {
  const params = new URLSearchParams(location.search);
  const gameId = params.get("game");
  const invite = params.get("invite");
  if (!gameId || !invite) {
    showProblem(W.joinNoLink);
    $("join").disabled = true;
    document.body.dataset.state = "error";
    return;
  }
  if (tokens.get(gameId)) {
    goPlay(gameId); // this tab holds a seat of the game already
    return;
  }
  $("game-id").textContent = W.gameId(gameId);
  $("join-about").textContent = W.joinAbout(gameId);
  $("join").addEventListener("click", () => join(gameId, invite));
  document.body.dataset.state = "ready";
}
