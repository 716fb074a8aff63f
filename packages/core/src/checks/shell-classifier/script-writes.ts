/** What a Python or Node script does to files, judged from its source. */
export interface ScriptEffects {
  /** It opens files for writing, renames, copies or removes them. */
  writes: boolean;
  /** The written paths, when every one is a literal (or a name bound to one); else undefined. */
  targets: string[] | undefined;
  /** It reads a file and writes the same one back (a script that edits files). */
  rewrites: boolean;
}

const STRING = String.raw`(?:'[^'\n]*'|"[^"\n]*")`;
const ARG = String.raw`([^,()]+?|[\w.]+\([^()]*\))`;

// A write: open(x, 'w'), open(x, mode='a'), Path(x).write_text(), fs.writeFileSync(x, …), …
const WRITE_PATTERNS: RegExp[] = [
  new RegExp(String.raw`\bopen\(\s*${ARG}\s*,\s*(?:mode\s*=\s*)?['"](?:[wax]|r\+)[bt+]*['"]`, 'g'),
  new RegExp(String.raw`\bopen\(\s*${ARG}\s*,[^)]*\bmode\s*=\s*['"](?:[wax]|r\+)`, 'g'),
  /([\w.]+(?:\([^()]*\))?)\.write_(?:text|bytes)\(/g,
  /\b(?:fs\.)?(?:writeFileSync|appendFileSync|writeFile|appendFile)\(\s*([^,()]+)/g,
  /\b(?:shutil\.(?:copy2?|copyfile|move)|os\.(?:rename|replace))\(\s*[^,]+,\s*([^,)]+)/g,
  /\b(?:os\.(?:remove|unlink)|shutil\.rmtree|fs\.(?:unlinkSync|rmSync|renameSync))\(\s*([^,)]+)/g,
  /\.(?:unlink|rename|replace)\(\)/g,
];
const INPLACE = /fileinput\.(?:input|FileInput)\([^)]*inplace\s*=\s*(?:True|1)/;
const READ_PATTERNS: RegExp[] = [
  new RegExp(String.raw`\bopen\(\s*${ARG}\s*(?:\)|,\s*(?:mode\s*=\s*)?['"]r[bt]?['"])`, 'g'),
  /([\w.]+(?:\([^()]*\))?)\.read_(?:text|bytes)\(/g,
  /\b(?:fs\.)?readFileSync\(\s*([^,()]+)/g,
];

/**
 * Reads the effects of a script's source. Cheap and conservative: a write whose target is not
 * a literal leaves `targets` undefined (an unknown target), which callers count as a change.
 */
export function scriptEffects(code: string): ScriptEffects {
  const written: string[] = [];
  let unknown = false;
  let writes = false;
  for (const pattern of WRITE_PATTERNS) {
    for (const m of code.matchAll(pattern)) {
      writes = true;
      const target = m[1] === undefined ? undefined : resolveLiteral(m[1], code);
      if (target === undefined) unknown = true;
      else written.push(target);
    }
  }
  // Shelling out to an in-place editor from the script (`subprocess.run(['sed', '-i', …])`).
  const inplace =
    INPLACE.test(code) || /['"](?:sed|perl)['"]\s*,\s*['"]-\w*i|\b(?:sed|perl) -\w*i\b/.test(code);
  if (inplace) {
    writes = true;
    unknown = true;
  }
  const readArgs = new Set<string>();
  for (const pattern of READ_PATTERNS) {
    for (const m of code.matchAll(pattern)) readArgs.add(normalizeArg(m[1]!));
  }
  const writeArgs = new Set<string>();
  for (const pattern of WRITE_PATTERNS.slice(0, 4)) {
    for (const m of code.matchAll(pattern))
      if (m[1] !== undefined) writeArgs.add(normalizeArg(m[1]));
  }
  const rewrites =
    inplace ||
    [...writeArgs].some((a) => readArgs.has(a)) ||
    // Read every line, then write lines back: the usual shape of an edit script.
    (writes &&
      /\.readlines\(\)|\.read\(\)|read_text\(|readFileSync/.test(code) &&
      /\.(?:replace|sub|insert)\(|writelines/.test(code) &&
      written.length === 0);
  return { writes, targets: writes && !unknown ? [...new Set(written)] : undefined, rewrites };
}

function normalizeArg(arg: string): string {
  return arg.replace(/\s+/g, '');
}

/** A literal path argument, or a variable bound to one (`path = "x.py"`), else undefined. */
function resolveLiteral(arg: string, code: string): string | undefined {
  const a = arg.trim();
  const lit = literal(a);
  if (lit !== undefined) return lit;
  const wrapped = /^(?:Path|pathlib\.Path)\(\s*(.+?)\s*\)$/.exec(a);
  if (wrapped) return resolveLiteral(wrapped[1]!, code);
  if (!/^[A-Za-z_]\w*$/.test(a)) return undefined;
  const binding = new RegExp(
    String.raw`(?:^|\n)\s*(?:const |let |var )?${a}\s*=\s*(?:Path\(|pathlib\.Path\()?\s*(${STRING})`,
  ).exec(code);
  return binding ? literal(binding[1]!) : undefined;
}

function literal(text: string): string | undefined {
  const m = /^(?:'([^']*)'|"([^"]*)")$/.exec(text);
  return m ? (m[1] ?? m[2]) : undefined;
}
