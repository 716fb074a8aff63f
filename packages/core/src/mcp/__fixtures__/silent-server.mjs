// A process that starts and reads its stdin but never answers: a hung MCP server. Its stderr
// says so in one line, or in as many numbered lines as a number argument asks (0: it writes
// nothing). Other arguments are ignored: a test passes a tag of its own to find its processes.
const lines = process.argv.slice(2).find((arg) => /^\d+$/.test(arg));
if (lines === undefined) process.stderr.write('silent server up, answering nothing\n');
else for (let n = 1; n <= Number(lines); n++) process.stderr.write(`silent server line ${n}\n`);
process.stdin.resume();
setInterval(() => {}, 60_000);
