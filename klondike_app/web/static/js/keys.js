// The keyboard: arrows and Tab move between piles (up and down inside a column choose where a
// run starts), Enter or Space picks up and puts down, Space elsewhere draws; U undo, H hint,
// A play the hint, N new deal, R replay, F auto finish, Esc cancel.
import { cardAt } from "./table.js";

const TOP_ROW = ["stock", "waste", "found0", "found1", "found2", "found3"];
const COLUMNS = ["col0", "col1", "col2", "col3", "col4", "col5", "col6"];
const BELOW = { stock: "col0", waste: "col1", found0: "col3", found1: "col4", found2: "col5", found3: "col6" };
const ABOVE = { col0: "stock", col1: "waste", col2: "waste", col3: "found0", col4: "found1", col5: "found2", col6: "found3" };

let cursor = null;  // {pile, index}: the card Enter would pick in a column

function focusedPile() {
  const pile = document.activeElement?.closest?.(".pile");
  return pile ? pile.dataset.pile : null;
}

function showCursor() {
  for (const card of document.querySelectorAll(".card.cursor")) card.classList.remove("cursor");
  if (cursor && cursor.index !== null) cardAt(cursor.pile, cursor.index)?.classList.add("cursor");
}

function focusPile(pile, controls) {
  if (document.activeElement?.id !== pile) document.getElementById(pile).focus();
  const cards = pile.startsWith("col") ? controls.view().tableau[Number(pile.slice(3))] : [];
  cursor = { pile, index: cards.length ? cards.length - 1 : null };
  showCursor();
}

function step(list, pile, delta) {
  const index = list.indexOf(pile);
  return list[(index + delta + list.length) % list.length];
}

function moveCursor(pile, delta, controls) {
  const cards = controls.view().tableau[Number(pile.slice(3))];
  if (!cursor || cursor.pile !== pile || cursor.index === null) return focusPile(ABOVE[pile], controls);
  cursor.index = Math.min(cursor.index, cards.length - 1);
  const next = cursor.index + delta;
  if (next >= cards.length) return;
  if (next < 0 || cards[next] === null) return focusPile(ABOVE[pile], controls);
  cursor.index = next;
  showCursor();
}

function arrow(key, controls) {
  const pile = focusedPile() ?? "stock";
  const row = pile.startsWith("col") ? COLUMNS : TOP_ROW;
  if (key === "ArrowLeft") return focusPile(step(row, pile, -1), controls);
  if (key === "ArrowRight") return focusPile(step(row, pile, 1), controls);
  if (!pile.startsWith("col")) return key === "ArrowDown" ? focusPile(BELOW[pile], controls) : undefined;
  return moveCursor(pile, key === "ArrowUp" ? -1 : 1, controls);
}

function enter(controls) {
  const pile = focusedPile();
  if (!pile) return false;
  const cards = pile.startsWith("col") ? controls.view().tableau[Number(pile.slice(3))] : [];
  const index = cursor && cursor.pile === pile && cursor.index < cards.length ? cursor.index : null;
  controls.activate(pile, index);
  return true;
}

export function wireKeys(controls) {
  const commands = {
    u: controls.undo, h: () => controls.hint(), a: controls.playHint, n: controls.newDeal,
    r: controls.replay, f: controls.toggleFinish,
  };
  document.addEventListener("focusin", () => {
    const pile = focusedPile();
    if (pile && cursor?.pile !== pile) focusPile(pile, controls);
  });
  // after every redraw the cursor starts again at the focused pile's last card
  document.addEventListener("table-drawn", () => {
    const pile = focusedPile();
    if (pile) focusPile(pile, controls);
    else cursor = null;
  });
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape") return controls.cancel();
    if (document.querySelector("dialog[open]") || !controls.view()) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key.startsWith("Arrow")) {
      event.preventDefault();
      return arrow(key, controls);
    }
    if (key === "Enter" || key === " ") {
      event.preventDefault();
      if (!enter(controls) && key === " ") controls.drawOrRecycle();
      return;
    }
    if (key === "f" && controls.view().won) return;
    if (commands[key] && !(controls.busy() && key !== "f")) {
      event.preventDefault();
      commands[key]();
    }
  });
}
