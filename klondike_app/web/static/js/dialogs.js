// The page's dialogs: each button with data-command calls the handler of that name.
export function wireDialogs(handlers) {
  for (const dialog of document.querySelectorAll("dialog")) {
    dialog.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-command]");
      if (!button) return;
      dialog.close();
      const handler = handlers[button.dataset.command];
      if (handler) handler();
    });
  }
}

export function openDialog(id) {
  const dialog = document.getElementById(id);
  for (const other of document.querySelectorAll("dialog[open]")) if (other !== dialog) other.close();
  if (!dialog.open) dialog.showModal();
}

export function closeDialogs() {
  let closed = false;
  for (const dialog of document.querySelectorAll("dialog[open]")) {
    dialog.close();
    closed = true;
  }
  return closed;
}

export function anyDialogOpen() { return document.querySelector("dialog[open]") !== null; }

export function formatTime(ms) {
  const seconds = Math.floor(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const pad = (n) => String(n).padStart(2, "0");
  return hours ? `${hours}:${pad(minutes % 60)}:${pad(seconds % 60)}` : `${minutes}:${pad(seconds % 60)}`;
}

export function rulesText(rules) {
  const passes = rules.max_passes === null ? "unlimited passes" : `${rules.max_passes} pass${rules.max_passes > 1 ? "es" : ""}`;
  const empty = rules.empty_column === "king" ? "kings on empty columns" : "any card on empty columns";
  const recall = rules.foundation_to_tableau ? "" : ", no recall";
  return `Draw ${rules.draw_count}, ${passes}, ${empty}${recall}`;
}

export function fillStatistics(rows) {
  const body = document.getElementById("stats-body");
  body.replaceChildren();
  if (!rows.length) {
    const row = body.insertRow();
    const cell = row.insertCell();
    cell.colSpan = 7;
    cell.textContent = "No game played yet.";
    return;
  }
  for (const entry of rows) {
    const row = body.insertRow();
    const values = [rulesText(entry.rules), entry.played, entry.won, entry.lost, entry.abandoned,
      entry.best_time_ms === null ? "–" : formatTime(entry.best_time_ms), entry.fewest_moves ?? "–"];
    for (const value of values) row.insertCell().textContent = String(value);
  }
}
