// The viewer's controller (klondike watch): the deal list, stepping and playing through the
// chosen deal (one board per results file, in step), the reveal toggle and the solver's
// analyses. Positions come from the server one at a time; nothing about a game is computed here.
import { call } from "./api.js";
import { rulesText } from "./dialogs.js";
import { drawBoard, newBoard } from "./board.js";
import { deallist } from "./deallist.js";

const LETTERS = ["A", "B"];
const POLL_MS = 1000;
const state = {
  files: [], deals: [], deal: null, move: 0, total: 0, reveal: false, boards: [], totals: [],
  losing: [], worlds: null, timer: null, request: 0,
};

const $ = (id) => document.getElementById(id);

function message(text, isError = false) {
  $("message").textContent = text;
  $("message").classList.toggle("error", isError);
}

async function get(path, method = "GET") {
  const answer = await call(method, path);
  if (!answer.ok) throw new Error(answer.data.error || `error ${answer.status}`);
  return answer.data;
}

// --- one position ----------------------------------------------------------------------------
function boardStatus(position, index) {
  const result = position.result;
  const outcome = result.won ? "won" : `lost (${result.ending})`;
  const at = Math.min(state.move, state.totals[index]);
  const next = position.next ? `next: ${position.next.name}` : "game over";
  return `move ${at} of ${result.moves} · ${outcome}, ${result.cards_home} cards home · ${next}`;
}

async function showMove(move) {
  if (state.deal === null) return;
  state.move = Math.max(0, Math.min(move, state.total));
  const request = ++state.request;
  const reveal = state.reveal ? 1 : 0;
  const positions = await Promise.all(state.boards.map((board, index) =>
    board ? get(`/api/watch/${index}/${state.deal}/moves/${Math.min(state.move, state.totals[index])}?reveal=${reveal}`) : null));
  if (request !== state.request) return;  // a later step has been asked for
  positions.forEach((position, index) => {
    if (position) drawBoard(state.boards[index], position, boardStatus(position, index));
  });
  const first = positions.find((position) => position);
  $("timeline").value = String(state.move);
  $("move-number").value = String(state.move);
  $("played").textContent = first.played ? `Move ${first.move}: ${first.played.name}.` : "Opening position.";
  $("next-move").textContent = first.next ? `Next, move ${first.move + 1}: ${first.next.name}` : "";
  $("status-pass").textContent = `Pass ${first.passes}`;
  $("status-home").textContent = `Cards home ${first.cards_home}`;
  $("reveal-note").hidden = !state.reveal;
  const losing = state.losing[0];
  $("next-move").classList.toggle("losing", Boolean(losing && losing.move === state.move + 1 && losing.verdict === "lost"));
  history.replaceState(null, "", `?deal=${state.deal}&move=${state.move}${state.reveal ? "&reveal=1" : ""}`);
}

function step(delta) { return showMove(state.move + delta).catch((error) => message(String(error), true)); }

// --- playing ---------------------------------------------------------------------------------
function stop() {
  clearInterval(state.timer);
  state.timer = null;
  $("btn-play").textContent = "▶ play";
}

function play() {
  if (state.timer) return stop();
  if (state.move >= state.total) showMove(0);
  $("btn-play").textContent = "⏸ pause";
  state.timer = setInterval(() => {
    if (state.move >= state.total) return stop();
    step(1);
  }, 1000 / Number($("speed").value));
}

// --- analyses --------------------------------------------------------------------------------
function losingText(found, index) {
  const who = state.files.length > 1 ? `${LETTERS[index]}: ` : "";
  if (!found) return "";
  if (found.state === "running") return `${who}looking for the losing move (solver)…`;
  if (found.state === "failed") return `${who}the analysis failed: ${found.error}`;
  if (found.verdict === "won") return `${who}won.`;
  if (found.verdict === "winnable") return `${who}still winnable at the end: the game was given up on a winnable position.`;
  if (found.verdict === "unwinnable") return `${who}the deal cannot be won (solver${found.source ? ", verdict file" : ""}).`;
  if (found.move === 0) return `${who}the solver could not decide the opening within its budget.`;
  if (found.verdict === "undecided") {
    return `${who}winnable through move ${found.move - 1}; after move ${found.move} undecided within ${found.nodes} solver positions.`;
  }
  return `${who}losing move ${found.move}: before it the true deal was winnable, after it it is not (solver).`;
}

function drawLosing() {
  const marks = $("timeline-marks");
  marks.replaceChildren();
  state.losing.forEach((found, index) => {
    if (!found || found.state !== "done" || !found.move) return;
    const mark = document.createElement("button");
    mark.type = "button";
    mark.className = `mark ${found.verdict}`;
    mark.id = `losing-mark-${index}`;
    mark.dataset.move = String(found.move);
    mark.style.left = `${(100 * (found.move - 0.5)) / Math.max(state.total, 1)}%`;
    mark.title = losingText(found, index);
    mark.textContent = state.files.length > 1 ? LETTERS[index] : "✕";
    mark.addEventListener("click", () => showMove(found.move - 1));
    marks.append(mark);
  });
  $("losing-text").textContent = state.losing.map(losingText).filter(Boolean).join(" ");
  const first = state.losing.find((found) => found && found.state === "done" && found.move);
  $("btn-losing").disabled = !first;
}

async function loadLosing(deal) {
  for (;;) {
    const found = await Promise.all(state.boards.map((board, index) =>
      board ? get(`/api/watch/${index}/${deal}/losing-move`) : null));
    if (deal !== state.deal) return;
    state.losing = found;
    drawLosing();
    found.forEach((item, index) => {
      if (item && item.state === "done") deallist.setLosing(index, { [deal]: item });
    });
    if (!found.some((item) => item && item.state === "running")) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function drawWorlds(answer) {
  const canvas = $("worlds-chart");
  canvas.hidden = false;
  const context = canvas.getContext("2d");
  canvas.width = canvas.clientWidth || 600;
  context.clearRect(0, 0, canvas.width, canvas.height);
  const width = canvas.width / Math.max(state.total, 1);
  let done = 0;
  (answer.shares || []).forEach((share, index) => {
    if (!share) return;
    done += 1;
    const [won, decided] = share;
    const value = decided ? won / decided : 0.5;
    context.fillStyle = decided ? `hsl(${120 * value}, 70%, 50%)` : "#888";
    const height = Math.max(2, value * canvas.height);
    context.fillRect(index * width, canvas.height - height, Math.max(width - 1, 1), height);
  });
  const total = (answer.shares || []).length;
  const whose = state.files.length > 1 ? `${state.files[0].agent}'s ` : "";
  $("worlds-text").textContent = answer.state === "failed" ? `Worlds: ${answer.error}`
    : `Worlds (bars, ${whose}moves: share of ${answer.worlds} worlds sampled from the player's view still winnable after each move): ${done} of ${total} moves${answer.state === "done" ? "" : "…"}`;
}

async function loadWorlds(deal, start) {
  let answer = await get(`/api/watch/0/${deal}/worlds`, start ? "POST" : "GET");
  while (deal === state.deal) {
    if (answer.state !== "idle") drawWorlds(answer);
    if (answer.state !== "running") return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    answer = await get(`/api/watch/0/${deal}/worlds`);
  }
}

// every lost game's losing move, found in the background and shown in the list as it comes
async function loadAllLosing(start) {
  for (;;) {
    const answers = await Promise.all(state.files.map((file, index) =>
      get(`/api/watch/${index}/losing-moves`, start ? "POST" : "GET")));
    start = false;
    answers.forEach((answer, index) => deallist.setLosing(index, answer.found));
    const pending = answers.reduce((sum, answer) => sum + answer.pending, 0);
    $("all-losing-text").textContent = pending ? `${pending} games left to analyse…` : "";
    if (!pending) return;
    await new Promise((resolve) => setTimeout(resolve, 2 * POLL_MS));
  }
}

// --- choosing a deal -------------------------------------------------------------------------
async function openDeal(deal, move = 0) {
  stop();
  const entry = state.deals.find((item) => item.deal === deal);
  if (!entry) return message(`deal ${deal} is not in these results`, true);
  state.deal = deal;
  state.totals = entry.results.map((result) => (result ? result.moves : 0));
  state.total = Math.max(...state.totals);
  state.losing = [];
  $("boards").replaceChildren();
  state.boards = entry.results.map((result, index) =>
    result ? newBoard($("boards"), `${state.files.length > 1 ? LETTERS[index] + ": " : ""}${state.files[index].agent}`) : null);
  $("boards").classList.toggle("pair", state.files.length > 1);
  $("deal-number").textContent = String(deal);
  $("timeline").max = String(state.total);
  $("move-number").max = String(state.total);
  $("move-total").textContent = `of ${state.total}`;
  $("worlds-chart").hidden = true;
  $("worlds-text").textContent = "";
  deallist.select(deal);
  message("");
  await showMove(move);
  drawLosing();
  loadLosing(deal).catch((error) => message(String(error), true));
  loadWorlds(deal, false).catch((error) => message(String(error), true));
}

// --- wiring ----------------------------------------------------------------------------------
function wire() {
  $("btn-first").addEventListener("click", () => showMove(0));
  $("btn-last").addEventListener("click", () => showMove(state.total));
  $("btn-back").addEventListener("click", () => step(-1));
  $("btn-forward").addEventListener("click", () => step(1));
  $("btn-play").addEventListener("click", play);
  $("speed").addEventListener("change", () => { if (state.timer) { stop(); play(); } });
  $("timeline").addEventListener("input", () => showMove(Number($("timeline").value)));
  $("move-number").addEventListener("change", () => showMove(Number($("move-number").value) || 0));
  $("reveal").addEventListener("change", () => { state.reveal = $("reveal").checked; showMove(state.move); });
  $("btn-losing").addEventListener("click", () => {
    const found = state.losing.find((item) => item && item.state === "done" && item.move);
    if (found) showMove(found.move - 1);
  });
  $("btn-all-losing").addEventListener("click", () => loadAllLosing(true).catch((error) => message(String(error), true)));
  $("btn-worlds").addEventListener("click", () => loadWorlds(state.deal, true).catch((error) => message(String(error), true)));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select")) return;
    const keys = {
      ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => showMove(0), End: () => showMove(state.total),
      " ": play, v: () => $("reveal").click(), l: () => $("btn-losing").click(),
    };
    const action = keys[event.key];
    if (action) { event.preventDefault(); action(); }
  });
}

async function start() {
  wire();
  const overview = await get("/api/watch");
  state.files = overview.files;
  state.deals = overview.deals;
  $("files").textContent = state.files.map((file, index) =>
    `${state.files.length > 1 ? LETTERS[index] + ": " : ""}${file.agent} (${file.wins}/${file.games} won)`).join(" · ");
  $("status-rules").textContent = rulesText(state.files[0].rules);
  deallist.init(overview, openDeal);
  loadAllLosing(false).catch((error) => message(String(error), true));
  const query = new URLSearchParams(location.search);
  state.reveal = query.get("reveal") === "1";
  $("reveal").checked = state.reveal;
  const wanted = query.has("deal") ? Number(query.get("deal")) : deallist.first();
  if (wanted !== null) await openDeal(wanted, Number(query.get("move")) || 0);
}

start().catch((error) => message(String(error), true));
