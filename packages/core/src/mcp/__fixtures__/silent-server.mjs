// A process that starts and reads its stdin but never answers: a hung MCP server.
process.stderr.write('silent server up, answering nothing\n');
process.stdin.resume();
setInterval(() => {}, 60_000);
