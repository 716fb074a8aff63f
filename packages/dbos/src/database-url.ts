/**
 * The URL handed to DBOS. DBOS parses it itself (WHATWG `URL`), which rejects libpq's form for
 * a Unix socket with a role and no host (`postgres://user@/db?host=/run/postgresql`): "Invalid
 * URL". `localhost` there changes nothing the driver connects to: `?host=` wins over the URL's
 * host, and no host is localhost to `pg` anyway. Every other URL is passed through as written.
 */
export function dbosDatabaseUrl(url: string): string {
  return /^postgres(ql)?:\/\/[^/?#]*@\//i.test(url) ? url.replace('@/', '@localhost/') : url;
}
