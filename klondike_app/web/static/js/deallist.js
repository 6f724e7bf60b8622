// The viewer's list of deals: each file's result per deal, filtered and sorted; a click opens a
// deal. With two files, the deals only one of them won come first, as `klondike compare` pairs them.
const LETTERS = ["A", "B"];
const $ = (id) => document.getElementById(id);
const list = { overview: null, open: null, selected: null, losing: [] };

// the losing move as the list shows it: ✕N lost at move N, ≥N undecided from N on
function losingText(found) {
  if (!found || !found.move) return "";
  return found.verdict === "lost" ? ` ✕${found.move}` : found.verdict === "undecided" ? ` ≥${found.move}` : "";
}

function resultText(result, found) {
  if (!result) return "–";
  return `${result.won ? "won" : "lost"} · ${result.moves} · ${result.cards_home}${losingText(found)}`;
}

function keep(entry, filter) {
  const results = entry.results.filter(Boolean);
  const anyLost = results.some((result) => !result.won);
  if (filter === "won") return results.some((result) => result.won);
  if (filter === "lost") return anyLost;
  if (filter === "winnable-lost") return anyLost && entry.verdict === "solved";
  if (filter.startsWith("only")) return entry.only === Number(filter.slice(4));
  if (filter === "disagree") return entry.only !== null;
  return true;
}

function sortKey(entry, sort, position) {
  const first = entry.results.find(Boolean);
  if (sort === "deal") return entry.deal;
  if (sort === "moves") return first.moves;
  if (sort === "home") return -first.cards_home;
  if (sort === "losing") {
    const found = (list.losing[0] || {})[entry.deal];
    return found && found.move ? found.move : 1e9 + position;
  }
  if (sort === "disagree") return (entry.only === null ? 1e9 : 0) + position;
  return position;
}

function row(entry) {
  const tr = document.createElement("tr");
  tr.dataset.deal = String(entry.deal);
  const cells = [String(entry.deal), ...entry.results.map((result, index) => resultText(result, (list.losing[index] || {})[entry.deal]))];
  if (entry.verdict) cells.push(entry.verdict === "solved" ? "yes" : entry.verdict === "unsolvable" ? "no" : "?");
  for (const text of cells) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.append(td);
  }
  entry.results.forEach((result, index) => {
    if (result) tr.children[index + 1].classList.add(result.won ? "won" : "lost");
  });
  if (entry.only !== null) tr.classList.add("only");
  tr.addEventListener("click", () => list.open(entry.deal));
  if (entry.deal === list.selected) tr.classList.add("selected");
  return tr;
}

function visible() {
  const filter = $("filter").value;
  const sort = $("sort").value;
  const find = $("find-deal").value.trim();
  const entries = list.overview.deals
    .map((entry, position) => ({ entry, position }))
    .filter(({ entry }) => keep(entry, filter) && (!find || String(entry.deal).startsWith(find)));
  entries.sort((a, b) => sortKey(a.entry, sort, a.position) - sortKey(b.entry, sort, b.position));
  return entries.map(({ entry }) => entry);
}

function render() {
  $("deal-rows").replaceChildren(...visible().map(row));
}

function header(files, withVerdict) {
  const tr = document.createElement("tr");
  const names = files.length > 1 ? files.map((file, index) => `${LETTERS[index]}: ${file.agent}`) : ["result · moves · home"];
  for (const text of ["deal", ...names, ...(withVerdict ? ["winnable"] : [])]) {
    const th = document.createElement("th");
    th.textContent = text;
    tr.append(th);
  }
  $("deal-head").replaceChildren(tr);
}

function pairedTable(markdown) {
  const rows = markdown.split("\n").filter((line) => line.startsWith("|") && !line.startsWith("|---"));
  $("paired-table").replaceChildren(...rows.map((line, index) => {
    const tr = document.createElement("tr");
    for (const text of line.split("|").slice(1, -1)) {
      const cell = document.createElement(index ? "td" : "th");
      cell.textContent = text.trim();
      tr.append(cell);
    }
    return tr;
  }));
  $("paired").hidden = false;
}

export const deallist = {
  init(overview, open) {
    list.overview = overview;
    list.open = open;
    const files = overview.files;
    if (files.length > 1) {
      const options = [["disagree", "only one won"], ...files.map((file, index) => [`only${index}`, `only ${LETTERS[index]} won`])];
      for (const [value, text] of options) $("filter").append(new Option(text, value));
      $("sort").prepend(new Option("only one won first", "disagree"));
      $("sort").value = "disagree";
    }
    if (overview.paired) pairedTable(overview.paired);
    header(files, overview.deals.some((entry) => entry.verdict));
    for (const id of ["filter", "sort"]) $(id).addEventListener("change", render);
    $("find-deal").addEventListener("input", render);
    render();
  },
  // The deal to open when none is asked for: the first lost on a winnable deal (the reason to
  // watch), else the first listed.
  first() {
    const entries = visible();
    const lost = entries.find((entry) => keep(entry, "winnable-lost"));
    return lost ? lost.deal : entries.length ? entries[0].deal : null;
  },
  // losing moves found: {deal: {move, verdict}} of file `index`
  setLosing(index, found) {
    list.losing[index] = { ...(list.losing[index] || {}), ...found };
    render();
  },
  select(deal) {
    list.selected = deal;
    for (const tr of $("deal-rows").children) tr.classList.toggle("selected", tr.dataset.deal === String(deal));
  },
};
