/**
 * libpq's URL forms that WHATWG `URL` rejects or reads differently: a role with no host
 * (`postgres://user@/db?host=/var/run/postgresql`, a Unix socket) is an "Invalid URL", and
 * `?host=`/`?port=`/`?user=` override the URL's own parts. The driver (pg-connection-string)
 * parses them with a stand-in host; so do these, and put the empty host back on the way out.
 */
const STAND_IN_HOST = 'agate-no-host.invalid';

/** `connectionString` as a URL; an empty host after a role becomes a stand-in host. */
export function parseConnectionUrl(connectionString: string): URL {
  try {
    return new URL(connectionString);
  } catch (error) {
    // Only the empty host is retried; anything else stays the caller's "Invalid URL".
    if (!/^postgres(ql)?:\/\/[^/?#]*@\//i.test(connectionString)) throw error;
    return new URL(connectionString.replace('@/', `@${STAND_IN_HOST}/`));
  }
}

/** The URL as a connection string again, with the stand-in host taken out. */
export function formatConnectionUrl(url: URL): string {
  return url.toString().replace(`@${STAND_IN_HOST}/`, '@/');
}

/** The host the driver connects to: `?host=` (a socket directory or a name), else the URL's. */
export function hostOf(url: URL): string {
  const host = url.searchParams.get('host') ?? '';
  if (host !== '') return host;
  return url.hostname === STAND_IN_HOST || url.hostname === '' ? 'localhost' : url.hostname;
}
