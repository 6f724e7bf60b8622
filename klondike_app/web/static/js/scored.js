// A person scored on a seed set (klondike play --seeds): the session line ("game k of n" and
// the protocol), and the panel shown when a scored game is over. The server enforces the
// protocol and hides the deal number until the game is over; this only shows it.
import { formatTime, openDialog } from "./dialogs.js";

const ENDINGS = { won: "won", lost: "lost", abandoned: "given up" };

export function isScored(session) { return Boolean(session && session.scored); }

export function showSession(session) {
  document.body.classList.add("scored");
  const line = document.getElementById("session");
  line.hidden = false;
  const where = session.complete ? `set done: ${session.finished} of ${session.games} played`
    : `game ${session.position} of ${session.games}`;
  line.textContent = `${session.player} · ${session.seeds} · ${where} · ${session.protocol_text}`;
  line.title = `Scored on the benchmark; a game ends at ${session.max_moves} moves. Results: ${session.results}`;
  document.getElementById("btn-new").hidden = true;
  document.getElementById("btn-replay").hidden = true;
  document.getElementById("btn-resign").hidden = false;
}

export function showGameOver(view, session) {
  const result = view.won ? "won" : (ENDINGS[view.status] ?? view.status);
  document.getElementById("over-title").textContent =
    `Game ${session.finished} of ${session.games}: ${result}`;
  document.getElementById("over-result").textContent = result;
  document.getElementById("over-moves").textContent = String(view.moves);
  document.getElementById("over-home").textContent = `${view.cards_home} of 52`;
  document.getElementById("over-time").textContent = formatTime(view.elapsed_ms);
  document.getElementById("over-deal").textContent = view.deal ?? "–";
  document.getElementById("over-score").textContent = `${session.won} won of ${session.finished} played`;
  document.getElementById("over-note").textContent = session.complete
    ? `The set is done. Results: ${session.results}` : "Recorded. The next deal is a new one; there is no replay.";
  document.getElementById("over-next").hidden = session.complete;
  openDialog("dlg-over");
}
