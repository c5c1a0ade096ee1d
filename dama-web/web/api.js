// dama serve: the API client, the one place that talks to the server. Every call sends
// the seat's secret (friend and pass games) when the page has one; an error answer becomes
// an ApiError with the server's code, message and reason.

export class ApiError extends Error {
  constructor(status, error) {
    super(error && error.message ? error.message : 'HTTP ' + status);
    this.status = status;
    this.code = error && error.code;
    this.reason = error && error.reason;
  }
}

let seat = null;

/// The seat's secret sent with every call from now on (null: none).
export function useSeat(secret) {
  seat = secret || null;
}

/// `method path` with the JSON `body`: the answer's JSON (null for 204).
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (seat) init.headers['x-dama-seat'] = seat;
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 204) return null;
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new ApiError(res.status, data && data.error);
  return data;
}
