// One replayed table of the viewer: the position drawn by table.js, the move about to be played
// marked on its cards and piles, and, when the answer carries them, the hidden cards revealed
// (dimmed, and labelled as not seen by the player).
import { cardLabel } from "./cards.js";
import { drawTable } from "./table.js";

export function newBoard(container, title) {
  const board = document.getElementById("board-template").content.firstElementChild.cloneNode(true);
  board.querySelector(".board-title").textContent = title;
  container.append(board);
  return board;
}

function pile(board, name) { return board.querySelector(`.pile[data-pile="${name}"]`); }

// The view with each face-down card replaced by the true card: drawn at the face-up spacing, so
// that it can be read, then dimmed by markRevealed.
function withRevealed(position) {
  const tableau = position.tableau.map((cards, column) =>
    cards.map((card, index) => (card === null ? position.revealed.tableau[column][index] : card)));
  return { ...position, tableau };
}

function markRevealed(board, revealed) {
  revealed.tableau.forEach((cards, column) => {
    const elements = pile(board, `col${column}`).querySelectorAll(".card");
    cards.forEach((card, index) => {
      elements[index].classList.add("revealed");
      elements[index].setAttribute("aria-label", `${cardLabel(card)}, face down`);
    });
  });
}

function revealStock(board, revealed) {
  const strip = board.querySelector(".stock-reveal");
  const cards = strip.querySelector(".stock-cards");
  cards.replaceChildren();
  revealed.stock.forEach((card, index) => {
    const element = document.createElement("span");
    element.className = `mini${"DH".includes(card[1]) ? " red" : ""}${revealed.stock_seen[index] ? "" : " unseen"}`;
    element.dataset.card = card;
    element.textContent = cardLabel(card);
    cards.append(element);
  });
  if (!revealed.stock.length) cards.textContent = "empty";
  strip.hidden = false;
}

function markMove(board, move) {
  if (!move) return;
  const source = pile(board, move.from);
  for (const element of source.querySelectorAll(".card")) {
    if (move.cards.includes(element.dataset.card)) element.classList.add("next-card");
  }
  if (!move.cards.length && source.firstElementChild) source.classList.add("next-source");
  pile(board, move.to).classList.add("next-target");
}

export function drawBoard(board, position, status) {
  for (const element of board.querySelectorAll(".next-source, .next-target")) {
    element.classList.remove("next-source", "next-target");
  }
  drawTable(position.revealed ? withRevealed(position) : position, board.querySelector(".table"));
  board.querySelector(".stock-reveal").hidden = true;
  if (position.revealed) {
    markRevealed(board, position.revealed);
    revealStock(board, position.revealed);
  }
  markMove(board, position.next);
  board.classList.toggle("finished", !position.next);
  board.querySelector(".board-status").textContent = status;
}
