// The table's controller: keeps the server's latest view, turns clicks, drags and keys into
// requests, and shows the answers. Every rule stays on the server: a move is looked up in the
// view's list of legal moves, and a refused one is explained by the server's reason.
import { api } from "./api.js";
import { cardLabel } from "./cards.js";
import { anyDialogOpen, closeDialogs, fillStatistics, formatTime, openDialog, rulesText, wireDialogs } from "./dialogs.js";
import { wirePointer } from "./pointer.js";
import { wireKeys } from "./keys.js";
import { isScored, showGameOver, showSession } from "./scored.js";
import { cardAt, drawTable } from "./table.js";

const STORAGE_KEY = "klondike.game";
const IDLE_CAP_MS = 120000;   // the server counts at most this much of a pause
const FINISH_PACE_MS = 180;

const state = { view: null, viewAt: 0, selected: null, hint: null, finishing: false, deadShown: false, session: null };
const ONE_TRY = "One try per deal: this server scores you on a seed set, so there is no new deal or replay.";
let queue = Promise.resolve();

// Requests run one after another, in the order the player made them.
function serial(task) {
  queue = queue.then(task).catch((error) => message(String(error), true));
  return queue;
}

function message(text, isError = false) {
  const element = document.getElementById("message");
  element.textContent = text;
  element.classList.toggle("error", isError);
}

// --- showing a view ---------------------------------------------------------------------
function show(view) {
  state.view = view;
  state.viewAt = Date.now();
  state.selected = null;
  state.hint = null;
  if (!state.session) localStorage.setItem(STORAGE_KEY, view.id);
  drawTable(view);
  updateBars(view);
  if (state.session && view.status !== "playing") {
    refreshSession().then(() => showGameOver(view, state.session));
  } else if (view.won) {
    fillResults(view);
    openDialog("dlg-won");
  } else if (view.dead && !state.deadShown) {
    state.deadShown = true;
    openDialog("dlg-dead");
  }
  if (!view.dead) state.deadShown = false;
}

function updateBars(view) {
  document.getElementById("deal-number").textContent = view.deal ?? (view.protocol ? "hidden until the game is over" : "custom deck");
  document.getElementById("status-pass").textContent =
    `Pass ${view.passes}${view.rules.max_passes === null ? "" : ` of ${view.rules.max_passes}`}`;
  document.getElementById("status-moves").textContent = `Moves ${view.moves}`;
  document.getElementById("status-rules").textContent = rulesText(view.rules);
  document.getElementById("btn-undo").disabled = !view.can_undo;
  document.getElementById("btn-hint").disabled = view.status !== "playing" || Boolean(view.protocol && !view.protocol.hints);
  document.getElementById("btn-resign").disabled = view.status !== "playing";
  const finish = document.getElementById("btn-finish");
  finish.disabled = !view.auto_finish && !state.finishing;
  finish.classList.toggle("ready", view.auto_finish);
  finish.textContent = state.finishing ? "Stop" : "Finish";
  tick();
  if (view.won && !state.finishing) message(`Won in ${view.moves} moves.`);
  else if (view.dead) message("No moves left: undo, replay this deal or start a new one.");
  else if (view.auto_finish && !state.finishing) message("Every card is known: press F to finish.");
}

function tick() {
  const view = state.view;
  if (!view) return;
  const running = view.clock_running ? Math.min(Date.now() - state.viewAt, IDLE_CAP_MS) : 0;
  document.getElementById("status-time").textContent = formatTime(view.elapsed_ms + running);
}

function fillResults(view) {
  document.getElementById("won-time").textContent = formatTime(view.elapsed_ms);
  document.getElementById("won-moves").textContent = String(view.moves);
  document.getElementById("won-recycles").textContent = String(view.recycles);
  document.getElementById("won-home").textContent = `${view.cards_home} of 52`;
  document.getElementById("won-deal").textContent = view.deal ?? "custom deck";
}

async function answer(result) {
  if (result.ok) show(result.data);
  else {
    message(result.data.error, true);
    if (state.view) drawTable(state.view);  // a dragged card springs back
  }
  return result.ok;
}

// --- moves ---------------------------------------------------------------------------------
function movesOf(pile, card) {
  return state.view.legal.filter((m) => m.from === pile && m.cards.length && m.cards[0] === card);
}

function samePile(a, b) { return a === b || (a.startsWith("found") && b.startsWith("found")); }

function playAction(action) {
  return serial(async () => answer(await api.act(state.view.id, { action })));
}

// Move the card picked in `from` (with the cards on it) to pile `to`.
function moveTo(from, card, to) {
  const move = state.view.legal.find((m) => m.from === from && m.cards[0] === card && samePile(m.to, to));
  if (move) return playAction(move.action);
  return serial(async () => {
    const check = await api.check(state.view.id, { from, to: to.startsWith("found") ? "found" : to, card });
    message(check.ok ? check.data.reason : check.data.error, true);
    drawTable(state.view);
  });
}

function drawOrRecycle() {
  const move = state.view.legal.find((m) => m.from === "stock" || m.to === "stock");
  if (move) return playAction(move.action);
  return serial(async () => {
    const check = await api.check(state.view.id, { from: "stock", to: "waste" });
    message(check.ok ? check.data.reason : check.data.error, true);
  });
}

function select(selection) {
  clearMarks();
  state.selected = selection;
  if (!selection) return;
  for (let i = selection.index; cardAt(selection.pile, i); i++) cardAt(selection.pile, i).classList.add("selected");
  for (const move of movesOf(selection.pile, selection.card)) document.getElementById(move.to).classList.add("target");
  message(`${cardLabel(selection.card)} picked up: choose where it goes (Esc cancels).`);
}

function clearMarks() {
  for (const element of document.querySelectorAll(".selected, .target, .hint, .hint-target")) {
    element.classList.remove("selected", "target", "hint", "hint-target");
  }
}

// A click (or Enter) on card `index` of `pile`; `index` null means the pile itself.
function activate(pile, index) {
  const view = state.view;
  if (!view || state.finishing) return;
  if (state.selected) {
    const { pile: from, card, index: at } = state.selected;
    select(null);
    if (from === pile && (index === null || index === at)) return message("");
    return moveTo(from, card, pile);
  }
  if (pile === "stock") return drawOrRecycle();
  const cards = pileCards(pile);
  if (index === null || pile === "waste" || pile.startsWith("found")) index = cards.length - 1;
  const card = cards[index];
  if (card === undefined || card === null) return;
  const moves = movesOf(pile, card);
  if (moves.length === 1) return playAction(moves[0].action);
  if (moves.length === 0) return message(`${cardLabel(card)} has no legal move now.`, true);
  select({ pile, index, card });
}

function sendHome(pile, index) {
  const card = pileCards(pile)[index];
  const move = card && movesOf(pile, card).find((m) => m.to.startsWith("found"));
  if (move) {
    select(null);
    playAction(move.action);
  }
}

function pileCards(pile) {
  const view = state.view;
  if (pile === "waste") return view.waste;
  if (pile === "stock") return view.stock;
  if (pile.startsWith("found")) {
    const top = view.foundations[Number(pile.slice(5))];
    return top === null ? [] : [top];
  }
  return view.tableau[Number(pile.slice(3))];
}

// --- hints, undo, deals, auto finish ----------------------------------------------------------------
function hint(thenPlay = false) {
  return serial(async () => {
    const strong = document.getElementById("strong-hint").checked;
    if (strong) message("Thinking…");
    const result = await api.hint(state.view.id, strong);
    if (!result.ok) return message(result.data.error, true);
    const data = result.data;
    if (data.action === null) {
      document.getElementById("note-text").textContent = data.note;
      return openDialog("dlg-note");
    }
    if (thenPlay) return answer(await api.act(state.view.id, { action: data.action }));
    select(null);
    state.hint = data;
    markHint(data);
    message(`Hint: ${data.name} (A plays it)`);
  });
}

function markHint(data) {
  const cards = pileCards(data.from);
  const first = data.cards.length ? cards.lastIndexOf(data.cards[0]) : cards.length - 1;
  for (let i = Math.max(first, 0); cardAt(data.from, i); i++) cardAt(data.from, i).classList.add("hint");
  document.getElementById(data.from).classList.add("hint-target");
  document.getElementById(data.to).classList.add("hint-target");
}

function playHint() {
  if (state.hint) return playAction(state.hint.action);
  return hint(true);
}

function undo() { return serial(async () => answer(await api.undo(state.view.id))); }

function newDeal(body) {
  if (state.session) return message(ONE_TRY, true);
  stopFinish();
  closeDialogs();
  return serial(async () => answer(await api.create(body ?? { ...state.view.rules })));
}

function replay() { return newDeal({ replay: state.view.id }); }

function resign() {
  stopFinish();
  return serial(async () => answer(await api.resign(state.view.id)));
}

// --- a scored session -------------------------------------------------------------------------------
async function refreshSession() {
  const result = await api.session();
  if (result.ok && isScored(result.data)) {
    state.session = result.data;
    showSession(result.data);
  }
}

function nextScoredGame() {
  return serial(async () => {
    await refreshSession();
    const result = await api.sessionGame();
    if (result.ok) return show(result.data);
    message(result.data.error, true);
  });
}

function stopFinish() {
  state.finishing = false;
  if (state.view) updateBars(state.view);
}

function toggleFinish() {
  if (state.finishing) return stopFinish();
  if (!state.view.auto_finish) return message("Auto finish needs every card face up and the stock seen.", true);
  state.finishing = true;
  updateBars(state.view);
  message("Finishing… (F or Esc stops)");
  serial(async () => {
    while (state.finishing && !state.view.won) {
      const result = await api.finish(state.view.id);
      if (!(await answer(result))) break;
      await new Promise((resolve) => setTimeout(resolve, FINISH_PACE_MS));
    }
    stopFinish();
  });
}

async function showStatistics() {
  const result = await api.stats();
  fillStatistics(result.ok ? result.data.statistics : []);
  openDialog("dlg-stats");
}

function openNewDealDialog() {
  const rules = state.view.rules;
  document.getElementById("new-deal").value = "";
  document.getElementById("new-draw").value = String(rules.draw_count);
  document.getElementById("new-passes").value = rules.max_passes === null ? "" : String(rules.max_passes);
  document.getElementById("new-empty").value = rules.empty_column;
  document.getElementById("new-recall").checked = rules.foundation_to_tableau;
  openDialog("dlg-new");
}

function dealFromDialog(event) {
  if (event.submitter?.value !== "deal") return;
  const deal = document.getElementById("new-deal").value.trim();
  const passes = document.getElementById("new-passes").value;
  const body = {
    draw_count: Number(document.getElementById("new-draw").value),
    max_passes: passes === "" ? null : Number(passes),
    empty_column: document.getElementById("new-empty").value,
    foundation_to_tableau: document.getElementById("new-recall").checked,
  };
  if (deal !== "") body.deal = deal;
  newDeal(body);
}

async function copyDeal() {
  const deal = state.view?.deal;
  if (!deal) return;
  try {
    await navigator.clipboard.writeText(deal);
    message(`Deal ${deal} copied.`);
  } catch (error) {
    message(`Deal ${deal} (select it to copy).`);
  }
}

// --- start ----------------------------------------------------------------------------------------
async function start() {
  await refreshSession();
  if (state.session) return nextScoredGame();
  const fromUrl = new URLSearchParams(location.search).get("game");
  const id = fromUrl || localStorage.getItem(STORAGE_KEY);
  const found = id ? await api.show(id) : { ok: false };
  if (found.ok) show(found.data);
  else {
    const config = await api.config();
    await answer(await api.create(config.ok ? config.data.rules : {}));
  }
}

const controls = {
  activate, sendHome, moveTo, drawOrRecycle, undo, hint, playHint, replay, toggleFinish,
  newDeal: () => newDeal(), cancel: () => { stopFinish(); select(null); message(""); },
  selected: () => state.selected, view: () => state.view, busy: () => state.finishing || anyDialogOpen(),
};

wireDialogs({
  new: () => newDeal(), replay, undo, resign, next: nextScoredGame,
  look: () => message(state.session ? "The final board." : "The final board: undo, replay or deal again when ready."),
  close: () => {},
});
wirePointer(controls);
wireKeys(controls);
document.getElementById("btn-new").addEventListener("click", openNewDealDialog);
document.getElementById("btn-replay").addEventListener("click", replay);
document.getElementById("btn-undo").addEventListener("click", undo);
document.getElementById("btn-hint").addEventListener("click", () => hint());
document.getElementById("btn-finish").addEventListener("click", toggleFinish);
document.getElementById("btn-resign").addEventListener("click", () => openDialog("dlg-resign"));
document.getElementById("btn-stats").addEventListener("click", showStatistics);
document.getElementById("deal-number").addEventListener("click", copyDeal);
document.getElementById("new-form").addEventListener("submit", dealFromDialog);
window.addEventListener("resize", () => state.view && drawTable(state.view));
setInterval(tick, 1000);
start();
