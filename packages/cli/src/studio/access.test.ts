import { describe, expect, it } from 'vitest';
import {
  cookieValue,
  isJson,
  newStudioToken,
  type RequestFacts,
  refusal,
  tokenCookie,
  tokenCookieName,
} from './access.js';

const own = { port: 4321, token: 'the-token' };
const page: RequestFacts = {
  method: 'GET',
  host: '127.0.0.1:4321',
  origin: undefined,
  contentType: undefined,
  token: 'the-token',
};
const decision: RequestFacts = {
  ...page,
  method: 'POST',
  origin: 'http://127.0.0.1:4321',
  contentType: 'application/json; charset=utf-8',
};
const status = (facts: Partial<RequestFacts>, base = page) =>
  refusal({ ...base, ...facts }, own)?.status;

describe('refusal', () => {
  it('lets the page read (with its token) and decide (its origin, JSON)', () => {
    expect(refusal(page, own)).toBeUndefined();
    expect(refusal({ ...page, origin: 'http://127.0.0.1:4321' }, own)).toBeUndefined();
    expect(refusal(decision, own)).toBeUndefined();
    expect(status({ host: 'localhost:4321', origin: 'http://localhost:4321' }, decision)).toBe(
      undefined,
    );
  });

  it('refuses another Host first (DNS rebinding), whatever else the request holds', () => {
    for (const host of [
      undefined,
      '',
      'evil.example',
      '127.0.0.1:4322',
      '127.0.0.1',
      'localhost',
    ]) {
      expect(status({ host }), String(host)).toBe(403);
      expect(status({ host, origin: `http://${host}` }, decision), String(host)).toBe(403);
    }
  });

  it('refuses a missing or wrong token, on reads too', () => {
    for (const token of [undefined, '', 'the-toke', 'the-token ', 'THE-TOKEN']) {
      expect(status({ token }), String(token)).toBe(401);
      expect(status({ token }, decision), String(token)).toBe(401);
    }
  });

  it('refuses a foreign Origin on anything, and a decision with no Origin at all', () => {
    for (const origin of [
      'http://evil.example',
      'null',
      'http://127.0.0.1:4322',
      'https://127.0.0.1:4321',
      'http://localhost:4321',
    ]) {
      expect(status({ origin }), origin).toBe(403);
      expect(status({ origin }, decision), origin).toBe(403);
    }
    expect(status({ origin: undefined }, decision)).toBe(403);
    expect(refusal({ ...decision, origin: undefined }, own)?.error).toMatch(
      /only from the studio page/,
    );
  });

  it('refuses a decision that is not JSON (what a cross-site form sends)', () => {
    for (const contentType of [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      expect(status({ contentType }, decision), String(contentType)).toBe(415);
    }
    expect(status({ contentType: 'Application/JSON' }, decision)).toBeUndefined();
  });

  it('takes exactly application/json (parameters allowed), not a type that starts with it', () => {
    for (const contentType of [
      'application/jsonfoo',
      'application/json-patch+json',
      'application/json5',
      'application/jsonp; charset=utf-8',
      'text/application/json',
      ' application/ json',
      '',
    ]) {
      expect(status({ contentType }, decision), contentType).toBe(415);
      expect(isJson(contentType), contentType).toBe(false);
    }
    for (const contentType of [
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON;charset=UTF-8',
      ' application/json ',
    ]) {
      expect(status({ contentType }, decision), contentType).toBeUndefined();
    }
  });
});

describe('where a browser says the request comes from (Sec-Fetch-Site)', () => {
  it('takes the page itself and the typed address; refuses another site and another port', () => {
    expect(status({ fetchSite: 'same-origin' })).toBeUndefined();
    expect(status({ fetchSite: 'none' })).toBeUndefined();
    expect(status({ fetchSite: 'same-origin' }, decision)).toBeUndefined();
    for (const fetchSite of ['same-site', 'cross-site', 'weird']) {
      expect(status({ fetchSite }), fetchSite).toBe(403);
      expect(status({ fetchSite }, decision), fetchSite).toBe(403);
    }
  });
});

describe('the token cookie', () => {
  it('is HttpOnly, SameSite=Strict, named for the port, for the whole studio', () => {
    expect(tokenCookieName(4321)).toBe('agate-studio-4321');
    expect(tokenCookie(4321, 'tok')).toBe(
      'agate-studio-4321=tok; Path=/; HttpOnly; SameSite=Strict',
    );
  });

  it("reads its own port's cookie from a Cookie header, and no other", () => {
    const header = 'agate-studio-4322=other; agate-studio-4321=mine; x=1';
    expect(cookieValue(header, 'agate-studio-4321')).toBe('mine');
    expect(cookieValue(header, 'agate-studio-4322')).toBe('other');
    expect(cookieValue(header, 'agate-studio-432')).toBeUndefined();
    expect(cookieValue('xagate-studio-4321=no', 'agate-studio-4321')).toBeUndefined();
    expect(cookieValue(undefined, 'agate-studio-4321')).toBeUndefined();
    expect(cookieValue('=x; ; agate-studio-4321', 'agate-studio-4321')).toBeUndefined();
  });
});

describe('newStudioToken', () => {
  it('is 256 random bits, URL-safe, new each time', () => {
    const tokens = new Set(Array.from({ length: 100 }, newStudioToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
