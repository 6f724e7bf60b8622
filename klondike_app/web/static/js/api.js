// The JSON API (docs/web.md). Every call resolves to {ok, status, data}; it never throws for
// an answer the server gave, so a refused move is a message, not an exception.
export async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    return { ok: false, status: 0, data: { error: "the server cannot be reached" } };
  }
  let data = {};
  try {
    data = await response.json();
  } catch (error) {
    data = { error: `unexpected answer (${response.status})` };
  }
  return { ok: response.ok, status: response.status, data };
}

export const api = {
  config: () => call("GET", "/api/config"),
  create: (body) => call("POST", "/api/games", body),
  show: (id) => call("GET", `/api/games/${id}`),
  act: (id, body) => call("POST", `/api/games/${id}/actions`, body),
  check: (id, body) => call("POST", `/api/games/${id}/check`, body),
  undo: (id) => call("POST", `/api/games/${id}/undo`),
  hint: (id, strong) => call("GET", `/api/games/${id}/hint${strong ? "?strength=strong" : ""}`),
  finish: (id) => call("POST", `/api/games/${id}/finish`),
  resign: (id) => call("POST", `/api/games/${id}/resign`),
  stats: () => call("GET", "/api/stats"),
  session: () => call("GET", "/api/session"),
  sessionGame: () => call("POST", "/api/session/game"),
};
