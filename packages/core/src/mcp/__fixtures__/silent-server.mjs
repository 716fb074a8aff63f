// A process that starts and reads its stdin but never answers: a hung MCP server. Its stderr
// says so in one line, or in as many numbered lines as its argument asks (0: it writes nothing).
const lines = process.argv[2];
if (lines === undefined) process.stderr.write('silent server up, answering nothing\n');
else for (let n = 1; n <= Number(lines); n++) process.stderr.write(`silent server line ${n}\n`);
process.stdin.resume();
setInterval(() => {}, 60_000);
