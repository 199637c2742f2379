/**
 * Mines the natural-language slice (bench/nlslice/): per repository of NL_REPOS, functions and
 * methods with a doc comment (JSDoc, `///`, Go `//` doc, Javadoc, Python docstring), the
 * comment's first sentence as the query and the function's span (scry's own symbols) as the gold.
 * The index searched is a copy of the repository with those comments blanked (bench/nl-slice.ts),
 * so the words of the query are not in the code: the situation of a natural-language question.
 *
 *   npx tsx bench/mine-nl-slice.ts [--mirrors DIR] [--only owner/name] [--per-repo 25]
 *   npx tsx bench/mine-nl-slice.ts --set large [--per-repo 70]   the large-repository group (bench/largeset/doc/)
 *
 * Only the mined data is written (query, path, span, commit; licence per repository in
 * manifest.json), never the code. Targets are chosen by a hash of path and name (deterministic),
 * among non-test source files under the repository's `under` prefixes, spans of 3+ lines,
 * descriptions of 4+ words, distinct descriptions; a leading repetition of the function's name is
 * removed (Go style `Foo returns ...` → `Returns ...`).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/index.js';
import { isHeldOutName } from './bench-repos.js';
import { blankComments, commentAbove, firstSentence, hashCommentAbove, pythonDocstring, type DocComment } from './doc-comments.js';
import { ensureNlTree, exportTree, LARGE_DOC_SET, manifestOf, NL_SET, nlFileOf, type NlManifestEntry, type NlRepo, type NlSet } from './nl-slice.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Candidate {
  readonly path: string;
  readonly name: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly query: string;
  readonly doc: DocComment;
  readonly key: string;
}

const SKIP_PATH = /(^|\/)(tests?|testing|testdata|_?examples?|benches|benchmarks?|docs?|vendor|third_party|fixtures?)\//;

/** C and C++ share headers (`.h` is read as C): a C++ repository's headers count as its language. */
const FAMILY: Record<string, string> = { c: 'c', cpp: 'c' };
const sameFamily = (a: string, b: string): boolean => a === b || (FAMILY[a] !== undefined && FAMILY[a] === FAMILY[b]);

function docOf(lines: readonly string[], language: string, start: number, end: number): DocComment | undefined {
  if (language === 'python') return pythonDocstring(lines, start, end);
  if (language === 'ruby') return hashCommentAbove(lines, start);
  // a symbol span may begin at its own doc comment: then the comment is the lines before the code
  let def = start;
  while (def <= end && /^\s*(\/\/|\/\*|\*)/.test(lines[def]!)) def++;
  return commentAbove(lines, def);
}

/** The doc-commented functions of the repository at `root`, and every path scry indexes there. */
async function candidates(root: string, r: NlRepo): Promise<{ found: Candidate[]; indexed: string[] }> {
  const db = mkdtempSync(join(tmpdir(), 'scry-nl-'));
  // the miner reads symbols only: no vectors
  const engine = await createEngine({ root, db: join(db, 'index.db'), config: { embed: { provider: 'none' } } });
  const out: Candidate[] = [];
  try {
    await engine.index();
    const listing = await engine.listFiles({ limit: 10_000 });
    const indexed = (await engine.listFiles({ limit: 10_000, includeHidden: true })).files.map((f) => f.path);
    for (const f of listing.files) {
      if (!sameFamily(f.language, r.language) || !r.under.some((u) => f.path.startsWith(u)) || SKIP_PATH.test(f.path)) continue;
      const outline = await engine.outline(f.path);
      if (outline.isTest) continue;
      const lines = readFileSync(join(root, f.path), 'utf8').split('\n');
      for (const s of outline.symbols) {
        if ((s.kind !== 'function' && s.kind !== 'method') || s.endLine - s.startLine < 2) continue;
        const doc = docOf(lines, r.language, s.startLine - 1, s.endLine - 1);
        const query = doc && firstSentence(doc.text, s.name);
        if (!doc || !query) continue;
        const key = createHash('sha1').update(`${f.path}\0${s.name}\0${s.startLine}`).digest('hex');
        out.push({ path: f.path, name: s.name, startLine: s.startLine, endLine: s.endLine, query, doc, key });
      }
    }
    return { found: out, indexed };
  } finally {
    engine.close();
    rmSync(db, { recursive: true, force: true });
  }
}

/** Text folded for the "appears elsewhere" test: comment markers and markup dropped, case and whitespace folded. */
const fold = (text: string): string =>
  text
    .replace(/^\s*(\/\/[/!]?|\/\*\*?|\*\/?|#+|"""|''')/gm, ' ')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();

/**
 * The candidates whose sentence appears in no file scry indexes (`indexed`) once all of `picked`
 * are blanked: not in another comment, a README, a docs page or a string. Such a query would be
 * answered by the duplicate, not by understanding the function. Files scry skips (build output
 * such as `dist/`, vendored code) are not searched, so they do not count.
 */
function notElsewhere(root: string, indexed: readonly string[], picked: readonly Candidate[]): Candidate[] {
  const spans = new Map<string, DocComment[]>();
  for (const c of picked) spans.set(c.path, [...(spans.get(c.path) ?? []), c.doc]);
  const texts: string[] = [];
  for (const rel of indexed) {
    const raw = readFileSync(join(root, rel), 'utf8');
    texts.push(fold(spans.has(rel) ? blankComments(raw, spans.get(rel)!) : raw));
  }
  return picked.filter((c) => {
    const q = fold(c.query);
    return !texts.some((t) => t.includes(q));
  });
}

async function mine(mirrors: string, r: NlRepo, perRepo: number, set: NlSet): Promise<NlManifestEntry> {
  const name = r.repo.split('/')[1]!.toLowerCase();
  if (isHeldOutName(r.repo)) throw new Error(`${r.repo} is held out`);
  const gitDir = join(mirrors, r.repo.replace('/', '+'), 'repo');
  const { execFileSync } = await import('node:child_process');
  const commit = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const scratch = mkdtempSync(join(tmpdir(), 'scry-nl-tree-'));
  try {
    exportTree(gitDir, commit, scratch);
    const { found: all, indexed } = await candidates(scratch, r);
    const seen = new Set<string>();
    const distinct = all
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .filter((c) => {
        const q = c.query.toLowerCase();
        if (seen.has(q)) return false;
        seen.add(q);
        return true;
      });
    // twice: the second pass checks the kept ones against a tree where only they are blanked
    const once = notElsewhere(scratch, indexed, distinct.slice(0, perRepo * 2)).slice(0, perRepo);
    const picked = notElsewhere(scratch, indexed, once);
    const blanked: Record<string, Array<[number, number]>> = {};
    for (const c of picked) (blanked[c.path] ??= []).push([c.doc.start, c.doc.end]);
    const short = name.replace(/[^a-z0-9]+/g, '');
    const lines = picked.map((c) => JSON.stringify({ id: `${short}:${c.name}:${c.path}:${c.startLine}`, query: c.query, expected: [{ path: c.path, startLine: c.startLine, endLine: c.endLine }] }));
    mkdirSync(set.dir, { recursive: true });
    writeFileSync(nlFileOf(r.repo, set), lines.join('\n') + '\n');
    process.stderr.write(`${r.repo}: ${picked.length} queries of ${all.length} candidates (${distinct.length} distinct) at ${commit.slice(0, 10)}\n`);
    return { ...r, commit, queries: picked.length, blanked };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const mirrors = arg('--mirrors') ?? '/work/.mirror';
  const only = arg('--only')?.split(',');
  const perRepo = Number(arg('--per-repo') ?? 25);
  const set = arg('--set') === 'large' ? LARGE_DOC_SET : NL_SET;
  const previous = new Map<string, NlManifestEntry>();
  try {
    for (const e of (JSON.parse(readFileSync(manifestOf(set), 'utf8')) as { repos: NlManifestEntry[] }).repos) previous.set(e.repo, e);
  } catch {
    // first run
  }
  for (const r of set.repos) {
    if (only && !only.includes(r.repo)) continue;
    const entry = await mine(mirrors, r, perRepo, set);
    previous.set(r.repo, entry);
    ensureNlTree(mirrors, entry, set);
  }
  const repos = set.repos.map((r) => previous.get(r.repo)).filter((e) => e !== undefined);
  const total = repos.reduce((a, e) => a + e.queries, 0);
  writeFileSync(manifestOf(set), `${JSON.stringify({ total, languages: [...new Set(repos.map((e) => e.language))], repos }, null, 1)}\n`);
  process.stderr.write(`${total} queries in ${repos.length} repositories\n`);
}

await main();
