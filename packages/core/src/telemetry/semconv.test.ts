import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import * as copied from './semconv.js';
import { VERSION } from './version.js';

describe('the GenAI names Agate copies', () => {
  it('are spelled exactly as the conventions package spells them', () => {
    const conventions = incubating as unknown as Record<string, unknown>;
    for (const [name, value] of Object.entries(copied)) {
      expect(conventions[name], name).toBeDefined();
      expect(value, name).toBe(conventions[name]);
    }
  });

  it('copy the stable ones exactly as the stable entry point spells them', () => {
    expect(copied.ATTR_SERVER_ADDRESS).toBe(stable.ATTR_SERVER_ADDRESS);
    expect(copied.ATTR_SERVER_PORT).toBe(stable.ATTR_SERVER_PORT);
    expect(copied.ATTR_ERROR_TYPE).toBe(stable.ATTR_ERROR_TYPE);
  });
});

describe('the tracer scope version', () => {
  it("is the package's version", () => {
    expect(VERSION).toBe(pkg.version);
  });
});
