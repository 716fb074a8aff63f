/**
 * The names the studio's page and server agree on, in a module with no imports: the page's
 * bundle takes it as it is.
 */

/** The header the page sends the launch's token in (or the `token` query parameter). */
export const TOKEN_HEADER = 'x-agate-studio-token';

/** The query parameter of the page's address (and of the event stream) that holds the token. */
export const TOKEN_PARAM = 'token';
