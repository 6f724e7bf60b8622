// Mouse and touch: a click picks a card up or puts it down, a double click sends a card home,
// a drag carries a card (with the cards on it) to another pile. Whether a move is legal is
// decided by the server; a refused drop is simply drawn again where it was.
const DRAG_THRESHOLD = 6;

function pressedAt(event) {
  const pile = event.target.closest(".pile");
  if (!pile) return null;
  const card = event.target.closest(".card");
  return {
    pile: pile.dataset.pile,
    index: card ? Number(card.dataset.index) : null,
    card: card?.dataset.card ?? null,
    movable: Boolean(card && card.classList.contains("face") && !card.classList.contains("inert")),
  };
}

function startDrag(press, event) {
  const pile = document.getElementById(press.pile);
  const carried = [...pile.querySelectorAll(".card")].filter((card) => Number(card.dataset.index) >= press.index);
  const first = carried[0].getBoundingClientRect();
  const layer = document.createElement("div");
  layer.className = "drag-layer";
  for (const card of carried) {
    const copy = card.cloneNode(true);
    copy.style.left = "0px";
    copy.style.top = `${card.getBoundingClientRect().top - first.top}px`;
    layer.append(copy);
    card.classList.add("dragging");
  }
  document.body.append(layer);
  press.dragging = { layer, dx: event.clientX - first.left, dy: event.clientY - first.top };
}

function moveLayer(press, event) {
  const { layer, dx, dy } = press.dragging;
  layer.style.transform = `translate(${event.clientX - dx}px, ${event.clientY - dy}px)`;
}

function dropTarget(event) {
  const element = document.elementFromPoint(event.clientX, event.clientY);
  return element?.closest(".pile")?.dataset.pile ?? null;
}

export function wirePointer(controls) {
  const table = document.getElementById("table");
  let press = null;
  let dragged = false;
  let lastClicked = null;

  table.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || controls.busy()) return;
    press = pressedAt(event);
    if (press) Object.assign(press, { x: event.clientX, y: event.clientY, dragging: null });
  });

  window.addEventListener("pointermove", (event) => {
    if (!press || !press.movable) return;
    if (!press.dragging) {
      if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < DRAG_THRESHOLD) return;
      if (controls.selected()) controls.cancel();
      startDrag(press, event);
    }
    moveLayer(press, event);
  });

  window.addEventListener("pointerup", (event) => {
    const finished = press;
    press = null;
    if (!finished?.dragging) return;
    dragged = true;
    finished.dragging.layer.remove();
    for (const card of document.querySelectorAll(".dragging")) card.classList.remove("dragging");
    const target = dropTarget(event);
    if (target && target !== finished.pile) controls.moveTo(finished.pile, finished.card, target);
  });

  table.addEventListener("click", (event) => {
    if (dragged) {
      dragged = false;
      return;
    }
    if (event.detail > 1 || controls.busy()) return;  // the second click of a double click
    const at = pressedAt(event);
    if (!at) return;
    lastClicked = at.card;
    controls.activate(at.pile, at.index);
  });

  table.addEventListener("dblclick", (event) => {
    const at = pressedAt(event);
    // only the card first clicked: if that click already moved it, another card is here now
    if (at && at.card && at.card === lastClicked) controls.sendHome(at.pile, at.index);
  });
}
