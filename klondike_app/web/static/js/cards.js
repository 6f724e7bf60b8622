// Card elements: a face shows rank and suit in two corners and a big suit in the middle; a
// face-down card (null) is a plain back. Shared by every page that draws cards.
const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_NAMES = { T: "10" };
const RED = new Set(["D", "H"]);

export function rankOf(card) { return RANK_NAMES[card[0]] || card[0]; }
export function suitSymbol(card) { return SUIT_SYMBOLS[card[1]]; }
export function cardLabel(card) { return card === null ? "face-down card" : rankOf(card) + suitSymbol(card); }

export function cardElement(card) {
  const element = document.createElement("div");
  element.className = "card";
  if (card === null) {
    element.classList.add("back");
    element.setAttribute("aria-label", "face-down card");
    return element;
  }
  element.classList.add("face");
  if (RED.has(card[1])) element.classList.add("red");
  element.dataset.card = card;
  element.setAttribute("aria-label", cardLabel(card));
  for (const place of ["top", "bottom"]) {
    const corner = document.createElement("span");
    corner.className = `corner ${place}`;
    corner.textContent = rankOf(card);
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = suitSymbol(card);
    corner.append(suit);
    element.append(corner);
  }
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.textContent = suitSymbol(card);
  element.append(pip);
  return element;
}
