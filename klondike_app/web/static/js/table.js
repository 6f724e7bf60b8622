// Draws a game view (the server's JSON) onto the table's piles. Only what the view holds is
// drawn: face-down cards arrive as null and are drawn as backs. A page with several tables
// passes the element holding one (its piles are found by data-pile).
import { cardElement, cardLabel } from "./cards.js";

const DOWN_STEP = 0.13;  // vertical offset of a face-down card, in card heights
const UP_STEP = 0.28;    // of a face-up card
const FAN_STEP = 0.36;   // horizontal offset of a fanned waste card, in card widths

function pileElement(name, root) { return root.querySelector(`.pile[data-pile="${name}"]`); }

function place(element, pile, index, left, top) {
  element.dataset.pile = pile;
  element.dataset.index = String(index);
  element.style.left = `${left}px`;
  element.style.top = `${top}px`;
  element.style.zIndex = String(index + 1);
  return element;
}

function cardSize(root) {
  const probe = pileElement("found0", root).getBoundingClientRect();
  return { width: probe.width, height: probe.height };
}

function drawStock(view, root) {
  const pile = pileElement("stock", root);
  pile.replaceChildren();
  pile.classList.toggle("empty", view.stock.length === 0);
  if (view.stock.length) pile.append(place(cardElement(null), "stock", 0, 0, 0));
  if (view.stock.length) {
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = String(view.stock.length);
    pile.append(count);
  }
  pile.setAttribute("aria-label", `stock, ${view.stock.length} cards`);
}

function drawWaste(view, size, root) {
  const pile = pileElement("waste", root);
  pile.replaceChildren();
  const waste = view.waste;
  const fan = Math.min(view.waste_fan, waste.length);
  // the card under the fan shows as the pile's base, then the fanned cards
  const first = Math.max(waste.length - fan - 1, 0);
  for (let index = first; index < waste.length; index++) {
    const shift = Math.max(index - (waste.length - fan), 0);
    const element = place(cardElement(waste[index]), "waste", index, shift * FAN_STEP * size.width, 0);
    if (index !== waste.length - 1) element.classList.add("inert");
    pile.append(element);
  }
  pile.setAttribute("aria-label", waste.length ? `waste, ${cardLabel(waste[waste.length - 1])} on top` : "waste, empty");
}

function drawFoundations(view, root) {
  view.foundations.forEach((top, suit) => {
    const pile = pileElement(`found${suit}`, root);
    pile.replaceChildren();
    if (top !== null) pile.append(place(cardElement(top), `found${suit}`, 0, 0, 0));
  });
}

function drawColumn(cards, column, size, root) {
  const pile = pileElement(`col${column}`, root);
  pile.replaceChildren();
  const room = Math.max(window.innerHeight - pile.getBoundingClientRect().top - 56 - size.height, size.height);
  const wanted = cards.reduce((sum, card, i) => sum + (i ? (cards[i - 1] === null ? DOWN_STEP : UP_STEP) : 0), 0) * size.height;
  const squeeze = wanted > room ? room / wanted : 1;
  let top = 0;
  cards.forEach((card, index) => {
    if (index) top += (cards[index - 1] === null ? DOWN_STEP : UP_STEP) * size.height * squeeze;
    pile.append(place(cardElement(card), `col${column}`, index, 0, top));
  });
  pile.style.height = `${top + size.height}px`;
  const up = cards.filter((card) => card !== null);
  pile.setAttribute("aria-label", `column ${column + 1}: ${cards.length - up.length} face down, ${up.map(cardLabel).join(" ") || "no face-up card"}`);
}

export function drawTable(view, root = document) {
  const size = cardSize(root);
  drawStock(view, root);
  drawWaste(view, size, root);
  drawFoundations(view, root);
  view.tableau.forEach((cards, column) => drawColumn(cards, column, size, root));
  document.dispatchEvent(new Event("table-drawn"));
}

// The element of the card at `index` of `pile` (null if none).
export function cardAt(pile, index) {
  return document.querySelector(`#${pile} .card[data-index="${index}"]`);
}
