// The one script of table.html: the path names the page (/play/, /replay/, /join/,
// /live/, /watch/, /tournament/).

import { startJoin } from "./join.js";
import { startLive } from "./live.js";
import { startPlay } from "./play.js";
import { startReplay } from "./replay.js";
import { startTournament } from "./tournament.js";
import { startWatch } from "./watch.js";
import { W, lang, switchLanguage, translatePage } from "./words.js";

const PAGES = {
  play: startPlay,
  replay: startReplay,
  join: startJoin,
  live: startLive,
  watch: startWatch,
  tournament: startTournament,
};

const first = location.pathname.split("/").filter(Boolean)[0];
const page = PAGES[first] ? first : "play";
const [title, name] = W.pages[page];
translatePage();
document.body.dataset.page = page;
document.title = `Schnapsen: ${name}`;
document.getElementById("page-title").textContent = title;
const choice = document.getElementById("lang");
choice.value = lang;
choice.addEventListener("change", () => switchLanguage(choice.value));
PAGES[page]();
