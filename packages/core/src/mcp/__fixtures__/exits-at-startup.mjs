// An MCP server that fails before the handshake, as a misconfigured one does, while the file
// named by FIXTURE_FAIL_FILE exists; once it is gone, the fixture server starts instead.
import { existsSync } from 'node:fs';

if (existsSync(process.env.FIXTURE_FAIL_FILE ?? '')) {
  process.stderr.write('loading config from /etc/fixture.json\n');
  process.stderr.write('fatal: FIXTURE_TOKEN is not set\n');
  process.exit(3);
}
await import('./fixture-server.mjs');
