/**
 * CPU of the tree-sitter steps of preparing a code file, measured apart on one thread: the parse,
 * the definitions/imports query, the identifiers query's captures alone, and `collectNameUses`
 * whole (its captures again plus the JavaScript that classifies and packs them; no symbols or
 * imports given, so no parent walks for definitions). Tells the WebAssembly from the JavaScript.
 *
 *   npx tsx bench/parse-split.ts [--root DIR] [--files=1500]   (default root: the corpus)
 *
 * Prints one line; writes nothing.
 */
import { readFileSync } from 'node:fs';
import type { FileCandidate } from '../src/core/file.js';
import { walk } from '../src/discover/walk.js';
import { loadGrammar } from '../src/parse/grammars.js';
import { collectNameUses } from '../src/parse/name-uses.js';
import { corpusAt, ensureCorpus } from './corpus.js';
import { parseArgs } from './results.js';

const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

async function main(): Promise<void> {
  const { values } = parseArgs(process.argv.slice(2));
  const root = values.has('root') ? corpusAt(values.get('root')!).root : ensureCorpus().root;
  const limit = Number(values.get('files') ?? 1500);
  const files: FileCandidate[] = [];
  walk({ root, maxFileBytes: 1_000_000, ignore: [], denylist: { add: [], remove: [] } }, { file: (c) => files.push(c), skip: () => {} });
  const code = files.filter((f) => f.language === 'javascript' || f.language === 'typescript').slice(0, limit);
  const t = { parse: 0, definitionsQuery: 0, identifierCaptures: 0, collectNameUses: 0 };
  let chars = 0;
  for (const f of code) {
    const g = await loadGrammar(f.language);
    if (!g) continue;
    const text = readFileSync(f.absPath, 'utf8');
    chars += text.length;
    let c0 = cpuMs();
    const tree = g.parser.parse(text);
    if (!tree) continue;
    t.parse += cpuMs() - c0;
    c0 = cpuMs();
    g.query.matches(tree.rootNode);
    t.definitionsQuery += cpuMs() - c0;
    c0 = cpuMs();
    g.identifiers?.captures(tree.rootNode);
    t.identifierCaptures += cpuMs() - c0;
    c0 = cpuMs();
    collectNameUses(g, tree, text, [], []);
    t.collectNameUses += cpuMs() - c0;
    tree.delete();
  }
  const ms = Object.entries(t).map(([k, v]) => `${k} ${Math.round(v)} ms`);
  console.log(`${code.length} JS/TS files, ${(chars / 1048576).toFixed(2)} M chars: ${ms.join(', ')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
