import { describe, expect, it } from 'vitest';
import {
  connectionProblem,
  connectionTarget,
  describeConnectionProblem,
  firstLine,
  isConnectionError,
} from './connection-problem.js';

const coded = (code: string, message = `failed (${code})`) =>
  Object.assign(new Error(message), { code });

describe('connection problems', () => {
  it('tells a missing database, a refused role and an unreachable server apart', () => {
    expect(connectionProblem(coded('3D000', 'database "agents" does not exist'))).toBe(
      'missing-database',
    );
    expect(connectionProblem(coded('28P01'))).toBe('auth');
    expect(connectionProblem(coded('28000', 'role "x" does not exist'))).toBe('auth');
    expect(connectionProblem(coded('ECONNREFUSED'))).toBe('unreachable');
    expect(connectionProblem(coded('ENOTFOUND'))).toBe('unreachable');
    expect(connectionProblem(new Error('timeout expired'))).toBe('unreachable');
    // Node's happy-eyeballs connect fails with an AggregateError carrying the code.
    const both = Object.assign(
      new AggregateError([coded('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')], ''),
      {
        code: 'ECONNREFUSED',
      },
    );
    expect(connectionProblem(both)).toBe('unreachable');
    expect(firstLine(both)).toBe('connect ECONNREFUSED ::1:5432');
    // Wrapped, as a store or DBOS wraps the driver's error.
    expect(connectionProblem(new Error('save failed', { cause: coded('57P01') }))).toBe(
      'unreachable',
    );
    expect(connectionProblem(coded('42501', 'permission denied for database x'))).toBeUndefined();
    expect(connectionProblem(new Error('syntax error'))).toBeUndefined();
  });

  it('reads a lost connection from DBOS’s text as well as from codes', () => {
    expect(
      isConnectionError(
        new Error(
          'Error getting startable workflows for queue q: connect ECONNREFUSED 127.0.0.1:5',
        ),
      ),
    ).toBe(true);
    expect(
      isConnectionError(new Error('terminating connection due to administrator command')),
    ).toBe(true);
    expect(isConnectionError(new Error('duplicate key value violates unique constraint'))).toBe(
      false,
    );
  });

  it('a Unix-socket URL: a role with no host, and ?host/?port/?user/?password over the URL', () => {
    expect(connectionTarget('postgres://ana:pw@/agents?host=/var/run/postgresql')).toEqual({
      url: 'postgres://ana@/agents?host=/var/run/postgresql',
      host: '/var/run/postgresql',
      port: '5432',
      database: 'agents',
      user: 'ana',
    });
    const bare = connectionTarget('postgresql:///agents?host=/tmp&port=6000&user=bo&password=x');
    expect(bare).toEqual({
      url: 'postgresql:///agents?host=%2Ftmp&port=6000&user=bo&password=***',
      host: '/tmp',
      port: '6000',
      database: 'agents',
      user: 'bo',
    });
    const missing = describeConnectionProblem('missing-database', bare, coded('3D000'));
    expect(missing).not.toContain('=x');
    expect(connectionTarget('postgres://ana@/agents').host).toBe('localhost');
    // Only the empty host after a role is read as one; other bad URLs stay bad.
    expect(connectionTarget('postgres://ana@:/x?').url).toBe('(not a URL)');
  });

  it('names the target without its password, and says what fixes each problem', () => {
    const target = connectionTarget('postgres://ana:s3cret@db.internal:6543/agents');
    expect(target).toEqual({
      url: 'postgres://ana@db.internal:6543/agents',
      host: 'db.internal',
      port: '6543',
      database: 'agents',
      user: 'ana',
    });
    const missing = describeConnectionProblem('missing-database', target, coded('3D000'));
    expect(missing).toContain('agate db create postgres://ana@db.internal:6543/agents');
    expect(missing).toContain('createdb agents');
    expect(missing).not.toContain('s3cret');
    expect(describeConnectionProblem('auth', target, coded('28P01'))).toContain(
      'Check the user and password',
    );
    expect(describeConnectionProblem('unreachable', target, coded('ECONNREFUSED'))).toContain(
      'nothing answers at db.internal:6543',
    );
  });

  it('names the database the server did not find, and quotes the commands it suggests', () => {
    const target = connectionTarget('postgres://ana@db:5432/agents?sslmode=require&x=$(id)');
    const other = describeConnectionProblem(
      'missing-database',
      target,
      new Error('wrapped', { cause: coded('3D000', 'database "agents_sys" does not exist') }),
    );
    expect(other).toMatch(/^database "agents_sys" does not exist on db:5432\./);
    expect(other).toContain(
      "agate db create 'postgres://ana@db:5432/agents_sys?sslmode=require&x=$(id)'",
    );
    expect(other).toContain('createdb agents_sys');
    const odd = connectionTarget('postgres://ana@db:5432/it%27s%20mine');
    expect(describeConnectionProblem('missing-database', odd, coded('3D000'))).toContain(
      `createdb 'it'\\''s mine'`,
    );
  });
});
