// One replayed table of the viewer: the position drawn by table.js, the move about to be played
// marked on its cards and piles, and, when the answer carries them, the hidden cards revealed
// (dimmed, and labelled as not seen by the player).
import { cardElement, cardLabel } from "./cards.js";
import { drawTable } from "./table.js";

export function newBoard(container, title) {
  const board = document.getElementById("board-template").content.firstElementChild.cloneNode(true);
  board.querySelector(".board-title").textContent = title;
  container.append(board);
  return board;
}

function pile(board, name) { return board.querySelector(`.pile[data-pile="${name}"]`); }

function revealColumns(board, revealed) {
  revealed.tableau.forEach((cards, column) => {
    const backs = pile(board, `col${column}`).querySelectorAll(".card.back");
    backs.forEach((back, index) => {
      const face = cardElement(cards[index]);
      face.classList.add("revealed");
      face.setAttribute("aria-label", `${cardLabel(cards[index])}, face down`);
      for (const key of ["pile", "index"]) face.dataset[key] = back.dataset[key];
      face.style.cssText = back.style.cssText;
      back.replaceWith(face);
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
  drawTable(position, board.querySelector(".table"));
  board.querySelector(".stock-reveal").hidden = true;
  if (position.revealed) {
    revealColumns(board, position.revealed);
    revealStock(board, position.revealed);
  }
  markMove(board, position.next);
  board.classList.toggle("finished", !position.next);
  board.querySelector(".board-status").textContent = status;
}
