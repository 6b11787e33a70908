// The one script of table.html: the path names the page (/play/, /replay/, /join/).

import { startJoin } from "./join.js";
import { startPlay } from "./play.js";
import { startReplay } from "./replay.js";

const PAGES = {
  play: { start: startPlay, title: "", name: "play against a bot or a friend" },
  replay: { start: startReplay, title: "replay", name: "replay" },
  join: { start: startJoin, title: "join", name: "join a game" },
};

const page = PAGES[location.pathname.split("/").filter(Boolean)[0]] ? location.pathname.split("/").filter(Boolean)[0] : "play";
document.body.dataset.page = page;
document.title = `Schnapsen: ${PAGES[page].name}`;
document.getElementById("page-title").textContent = PAGES[page].title;
PAGES[page].start();
