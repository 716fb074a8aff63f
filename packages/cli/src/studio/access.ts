import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Who the studio answers: only its own page. Anything on the machine can reach 127.0.0.1 (a
 * tool, an MCP server, another user, a web page through the browser), so every request is
 * checked here before it is routed:
 *
 * - its `Host` is the studio's own address (a rebound DNS name is not);
 * - it carries the launch's token, GETs included: the page's cookie (an `HttpOnly`,
 *   `SameSite=Strict` cookie named for the port, set when the printed address is opened) or
 *   the `x-agate-studio-token` header (a script of yours);
 * - a browser's request comes from the page itself or from the person (`Sec-Fetch-Site`),
 *   since a page on another port of 127.0.0.1 is same-site and gets the cookie sent too;
 * - a request that names an `Origin` names the page's own; one that changes something must
 *   name it (a browser always sends it on a POST) and come as `application/json` (which no
 *   cross-site form can send).
 */

/** A fresh token for one launch: 256 random bits, URL-safe. */
export function newStudioToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What of a request the checks look at. */
export interface RequestFacts {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  contentType: string | undefined;
  /** From the header, else the cookie (else, for the page's address only, the query). */
  token: string | undefined;
  /** The browser's `Sec-Fetch-Site` (absent outside browsers). */
  fetchSite?: string | undefined;
}

export interface Refusal {
  status: 401 | 403 | 415;
  error: string;
}

/** Why the studio must not answer this request, or undefined when it may. */
export function refusal(
  request: RequestFacts,
  own: { port: number; token: string },
): Refusal | undefined {
  const host = request.host ?? '';
  if (host !== `127.0.0.1:${own.port}` && host !== `localhost:${own.port}`) {
    return {
      status: 403,
      error: 'Unexpected Host header: the studio answers only its own address.',
    };
  }
  if (request.token === undefined || !sameSecret(request.token, own.token)) {
    return {
      status: 401,
      error:
        'This studio needs its token: open the address `agate studio` printed (it ends in ?token=…; ' +
        'the page keeps it in a cookie), or send it as the x-agate-studio-token header; each launch makes a new one.',
    };
  }
  // Cookies are shared by every port of 127.0.0.1 (same site): a page of another local
  // server makes the browser send this one's cookie. The browser says where a request comes
  // from; only the page itself (`same-origin`) or the person (`none`: the typed address) counts.
  if (
    request.fetchSite !== undefined &&
    request.fetchSite !== 'same-origin' &&
    request.fetchSite !== 'none'
  ) {
    return {
      status: 403,
      error: `The studio answers only its own page (the request came from a ${request.fetchSite} page).`,
    };
  }
  // Same-origin is the origin of the Host just checked. A browser sends `Origin` on every
  // cross-origin request, so another site's page is refused even holding the token; a change
  // without `Origin` at all does not come from the page either.
  const sameOrigin = request.origin === `http://${host}`;
  if (request.origin !== undefined && !sameOrigin) {
    return { status: 403, error: 'The studio answers only its own page (same origin).' };
  }
  if (request.method === 'GET') return undefined;
  if (!sameOrigin) {
    return { status: 403, error: 'Decisions are taken only from the studio page (same origin).' };
  }
  if (!isJson(request.contentType)) {
    return { status: 415, error: 'Send the decision as application/json.' };
  }
  return undefined;
}

/**
 * The media type is exactly `application/json` (any case, parameters such as `charset` after
 * a `;` allowed): `application/jsonfoo` or `application/json-patch+json` are not it.
 */
export function isJson(contentType: string | undefined): boolean {
  const essence = (contentType ?? '').split(';', 1)[0] ?? '';
  return essence.trim().toLowerCase() === 'application/json';
}

/**
 * The cookie the page's token is kept in. Cookies are not kept apart by port, so each
 * launch's is named for its port: two studios on one machine do not overwrite each other's.
 */
export function tokenCookieName(port: number): string {
  return `agate-studio-${port}`;
}

/** `Set-Cookie` for the token: sent only by the browser, only to 127.0.0.1, only same-site. */
export function tokenCookie(port: number, token: string): string {
  return `${tokenCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** Compares in constant time (both sides hashed first, so their lengths match). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
