/**
 * The names the studio's page and server agree on, in a module with no imports: the page's
 * bundle takes it as it is.
 */

/** The header a script sends the launch's token in (the page has it in its cookie). */
export const TOKEN_HEADER = 'x-agate-studio-token';

/** The query parameter of the printed address that holds the token (traded for the cookie). */
export const TOKEN_PARAM = 'token';
