// The replay viewer's analysis: ask for it (a job), show the job's progress, then
// per player its accuracy and a bar per decision (the loss against the best),
// and each decision with the best action beside the chosen one and its label.
// Everything shown is what GET /v1/games/{id}/analysis sends.

import { actionText, api, el, isYou, problemText } from "./cards.js";
import { W } from "./words.js";
import { $ } from "./table.js";

const POLL_MS = 250;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** The loss (game points) drawn as a full bar. */
const FULL_BAR = 1.5;

export function showAnalysis(gameId, token, names) {
  const button = $("analyse");
  button.disabled = false;
  button.onclick = () => request(gameId, token, names);
  $("analysis").replaceChildren();
  $("analysis-progress").hidden = true;
}

async function request(gameId, token, names) {
  const button = $("analyse");
  const bar = $("analysis-progress");
  const box = $("analysis");
  button.disabled = true;
  box.replaceChildren();
  document.body.dataset.analysis = "running";
  try {
    let job = await api("POST", `/v1/games/${encodeURIComponent(gameId)}/analysis`, { token, body: {} });
    bar.hidden = false;
    while (job.status !== "finished") {
      if (job.status === "failed") throw new Error(job.error || W.analysisFailed);
      bar.value = job.progress || 0;
      await sleep(POLL_MS);
      job = await api("GET", `/v1/jobs/${job.id}`);
    }
    bar.value = 1;
    const analysis = await api("GET", job.result.url, { token });
    render(analysis, names);
    document.body.dataset.analysis = "ready";
  } catch (error) {
    box.replaceChildren(el("p", { class: "problem" }, problemText(error)));
    document.body.dataset.analysis = "error";
  } finally {
    bar.hidden = true;
    button.disabled = false;
  }
}

const number = (value) => (value === null ? "" : `${value > 0 ? "+" : ""}${value.toFixed(2)}`);
const LABEL_TEXT = W.labels;

function render(analysis, names) {
  const you = (seat) => isYou(names[seat]);
  const players = analysis.players.map((p) =>
    el(
      "div",
      { class: "player", dataset: { seat: p.seat } },
      el("div", { class: "who" }, names[p.seat], el("b", { class: "accuracy" }, p.accuracy === null ? "\u2013" : `${p.accuracy}%`)),
      el("div", { class: "hint" }, W.playerErrors(p)),
      el(
        "div",
        { class: "chart", role: "img", "aria-label": W.lossChart(names[p.seat]) },
        ...analysis.decisions
          .filter((d) => d.seat === p.seat)
          .map((d) =>
            el("span", {
              class: `bar ${d.label}`,
              style: `height: ${Math.max(3, Math.min(100, (100 * d.loss) / FULL_BAR))}%`,
              title: W.barTitle(d, LABEL_TEXT[d.label] || d.label),
            }),
          ),
      ),
    ),
  );
  const rows = analysis.decisions.map((d) => {
    const chose = actionText(d.chosen, you(d.seat));
    const same = JSON.stringify(d.best) === JSON.stringify(d.chosen);
    return el(
      "li",
      { class: `decision ${d.label}`, dataset: { label: d.label, seat: d.seat } },
      el("span", { class: "where" }, W.decisionWhere(d)),
      " ",
      `${names[d.seat]} ${chose} ${number(d.chosen_value)}`,
      same ? "" : el("span", { class: "best" }, ` \u00b7 ${W.best}: ${actionText(d.best, you(d.seat))} ${number(d.best_value)}`),
      " ",
      el("span", { class: "tag" }, LABEL_TEXT[d.label] || d.label),
    );
  });
  $("analysis").dataset.decisions = String(analysis.decisions.length);
  $("analysis").replaceChildren(
    el("div", { class: "players" }, ...players),
    el(
      "p",
      { class: "hint" },
      W.thresholds(analysis.thresholds, analysis.level),
    ),
    el("ol", { class: "log decisions", id: "decisions" }, ...rows),
  );
}
