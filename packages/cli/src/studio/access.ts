import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Who the studio answers: only its own page. Anything on the machine can reach 127.0.0.1 (a
 * tool, an MCP server, another user, a web page through the browser), so every request is
 * checked here before it is routed:
 *
 * - its `Host` is the studio's own address (a rebound DNS name is not);
 * - it carries the launch's token (printed with the URL, as Jupyter does), GETs included;
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
  /** From the header, else the `token` query parameter. */
  token: string | undefined;
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
        'This studio needs its token: open the address `agate studio` printed (it ends in ?token=…); ' +
        'each launch makes a new one.',
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
  if (!(request.contentType ?? '').toLowerCase().startsWith('application/json')) {
    return { status: 415, error: 'Send the decision as application/json.' };
  }
  return undefined;
}

/** Compares in constant time (both sides hashed first, so their lengths match). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
