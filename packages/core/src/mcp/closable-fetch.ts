import { Agent, fetch as undiciFetch } from 'undici';

type UndiciInit = NonNullable<Parameters<typeof undiciFetch>[1]>;

/** A `fetch` whose sockets all belong to one connection and end with it. */
export interface ClosableFetch {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** Destroys every socket this fetch opened (kept-alive ones included); resolves once closed. */
  close(): Promise<void>;
}

/**
 * undici's `fetch` through an `Agent` of its own. The global `fetch` keeps idle sockets in a
 * process-wide pool after a connection is closed; an `<McpServer url>` must leave none behind
 * when its run ends, so its requests go through a dispatcher that `close()` destroys. Methods,
 * bodies, headers, redirects (`redirect: 'follow' | 'error' | 'manual'`) and abort signals are
 * undici's own handling, as in the global `fetch`.
 */
export function closableFetch(): ClosableFetch {
  const dispatcher = new Agent();
  const fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    // A `Request` of the global fetch is another class than undici's, which would read it as
    // a URL string: its parts are passed on instead (its body as the stream it is).
    const request = input instanceof Request ? input : undefined;
    const parts = request && {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: request.redirect,
      signal: request.signal,
      ...(request.body !== null ? { duplex: 'half' as const } : {}),
    };
    // undici's types name its own Request, Headers and body classes; the values are the same.
    const options = { ...parts, ...init, dispatcher } as unknown as UndiciInit;
    return undiciFetch(
      request?.url ?? (input as string | URL),
      options,
    ) as unknown as Promise<Response>;
  };
  return {
    fetch,
    close: () => dispatcher.destroy(),
  };
}
