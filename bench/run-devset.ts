/**
 * Ranking quality on the development benchmark of issue 18 (bench/bench-repos.ts): commit messages
 * and issue-like long texts (bench/devset/, mined by bench/mine-devset.ts) and doc-comment queries
 * (bench/nlslice/, mined by bench/mine-nl-slice.ts), for several ranking configurations side by
 * side, plus the fixed baseline of plain BM25 over 60-line windows (bench/bm25-windows.ts) measured
 * in the same run. Reported per half and per kind (bench/devset-report.ts), with paired bootstrap
 * intervals against a reference configuration (`--ref`, default `default`).
 *
 *   npx tsx bench/run-devset.ts [--sets devset,nl,large] [--kinds commit,issue,doc] [--mirrors DIR] [--only owner/name,...]
 *                               [--variants a,b] [--ref NAME] [--no-baseline] [--split tune|held-out|all] [--misses] [--by-query-kind]
 *   npx tsx bench/run-devset.ts --split held-out --variants default --check    # the regression guard (bench/devset-guard.ts)
 *   npx tsx bench/run-devset.ts --split held-out --variants default --record   # re-record it (when a change is kept on purpose)
 *
 * The halves are fixed by repository (`split` in bench/bench-repos.ts): tune on `tune`; report on
 * `held-out`, whose query files are frozen (bench/devset/split.json). Every commit query is searched
 * in the tree at its parent commit: the index of each commit is cached under bench/.devset-cache/
 * (built on first use from a git worktree of the mirror, see CommitTrees), the doc-comment trees
 * under bench/.nlslice-cache/, so later runs only search.
 * `--sets large` runs the large-repository group (LARGE_REPOS in bench/bench-repos.ts: doc-comment
 * queries on big TS/JS repositories, issue-like texts on big Python ones; bench/largeset/, indexes
 * under bench/.largeset-cache/), reported in tables of its own, never mixed into the per-kind
 * numbers above; not part of the default `--sets` (its first run indexes ~40 commits of each big
 * repository). `--check`/`--record` guard each set run: the development benchmark proper
 * (`devset`, `nl`) against bench/devset/held-out-default.json, `large` against
 * bench/largeset/held-out-default.json.
 * Writes bench/results/devset.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, type ConfigInput } from '../src/index.js';
import { CommitTrees, groupByCommit } from '../src/eval/from-git.js';
import { CHUNK_LIST_DEPTH, chunkListFileHits, scoreQuery } from '../src/eval/metrics.js';
import { parseQueriesFile } from '../src/eval/queries-file.js';
import { evalOne } from '../src/eval/run-eval.js';
import type { Engine } from '../src/index.js';
import type { EvalQuery } from '../src/eval/queries-file.js';
import { splitOfRepo, type Split } from './bench-repos.js';
import { BASELINE, baselineAtCommit, baselineFromTree, type WindowBm25 } from './bm25-windows.js';
import { GUARD_FILE, guardRecord, guardRegressions, LARGE_GUARD_FILE, readGuard, writeGuard } from './devset-guard.js';
import { formatQueryKindReport, formatReport, KINDS, type DevRow, type QueryKind } from './devset-report.js';
import { cacheOf, DEV_SET, fileOf, kindOf, LARGE_ISSUE_SET, mirrorOf, namesGoldFile, type DevSet } from './mine-devset.js';
import { ensureNlTree, LARGE_DOC_SET, NL_SET, nlCacheOf, readManifest, readNlQueries, type NlSet } from './nl-slice.js';
import { classifyQuery } from '../src/search/query-kind.js';
import { isLongQuery } from '../src/search/query-parse.js';
import { writeResult } from './results.js';

/** Ranking configurations compared; `default` is the shipped configuration. */
const ranking = (r: Record<string, unknown>): ConfigInput => ({ search: { ranking: r } }) as ConfigInput;

/** BM25 field weights over the shipped ones (stem 6, path 2, symbol 5, signature 2, body 1, parts 0.6), with `r` as ranking. */
const weighted = (w: Record<string, number>, r: Record<string, unknown> = {}): ConfigInput => ({ search: { weights: w, ranking: r } }) as ConfigInput;

/** `k:NAME` for each setting: the same `search.ranking.byKind` entry for every query kind. */
function kindVariants(settings: Record<string, Record<string, number>>): Record<string, ConfigInput> {
  return Object.fromEntries(Object.entries(settings).map(([name, s]) => [`k:${name}`, ranking({ byKind: { identifier: s, path: s, long: s, natural: s } })]));
}

const OFF = { queryWeights: false, definitionBoost: 1, testToSource: 0, nonCode: 1, fileSupport: 0, fileCap: 0, fileDecay: 1 };
export const VARIANTS: Record<string, ConfigInput> = {
  /** Every technique of issue 4 off: BM25 over the code-aware fields with the Core engine II priors. */
  base: ranking(OFF),
  '+queryWeights': ranking({ ...OFF, queryWeights: true }),
  '+nonCode.4': ranking({ ...OFF, nonCode: 0.4 }),
  '+testToSource.5': ranking({ ...OFF, testToSource: 0.5 }),
  '+fileSupport.2': ranking({ ...OFF, fileSupport: 0.2 }),
  '+definition1.25': ranking({ ...OFF, definitionBoost: 1.25 }),
  'default-queryWeights': ranking({ queryWeights: false }),
  'default-nonCode': ranking({ nonCode: 1 }),
  'default-testToSource': ranking({ testToSource: 0 }),
  'default-fileSupport': ranking({ fileSupport: 0 }),
  'default-definition': ranking({ definitionBoost: 1 }),
  'default+fileCap2': ranking({ fileCap: 2 }),
  'default+fileCap3': ranking({ fileCap: 3 }),
  /** Ranking II: a file's extra chunks only when close to its best (the prototype: 2 extra within 0.7×). */
  'default+cap3w.7': ranking({ fileCap: 3, fileCapWithin: 0.7 }),
  'default+cap2w.7': ranking({ fileCap: 2, fileCapWithin: 0.7 }),
  'default+cap3w.5': ranking({ fileCap: 3, fileCapWithin: 0.5 }),
  'default+cap5w.5': ranking({ fileCap: 5, fileCapWithin: 0.5 }),
  'default+cap5w.7': ranking({ fileCap: 5, fileCapWithin: 0.7 }),
  'default+cap4w.5': ranking({ fileCap: 4, fileCapWithin: 0.5 }),
  'default+cap5w.6': ranking({ fileCap: 5, fileCapWithin: 0.6 }),
  'default+cap5w.4': ranking({ fileCap: 5, fileCapWithin: 0.4 }),
  'default+cap10w.7': ranking({ fileCap: 10, fileCapWithin: 0.7 }),
  /** Ranking II: code chunks that define nothing (statements, windows) demoted. */
  'default+nonDef.8': ranking({ nonDefinition: 0.8 }),
  'default+nonDef.6': ranking({ nonDefinition: 0.6 }),
  /** Ranking II: soft cap, a file's n-th chunk × d^(n−1). */
  'default+decay.9': ranking({ fileDecay: 0.9 }),
  'default+decay.8': ranking({ fileDecay: 0.8 }),
  'default+decay.95': ranking({ fileDecay: 0.95 }),
  /** Ranking II: chunk × (0.7 + 0.3 · normalised file score). */
  'default+blend.3': ranking({ fileBlend: 0.3 }),
  'default+blend.5': ranking({ fileBlend: 0.5 }),
  'default-fileSupport+blend.3': ranking({ fileSupport: 0, fileBlend: 0.3 }),
  'default+blend.3+decay.95': ranking({ fileBlend: 0.3, fileDecay: 0.95 }),
  'default+blend.3+cap3w.7': ranking({ fileBlend: 0.3, fileCap: 3, fileCapWithin: 0.7 }),
  /** Ranking II: BM25 field weights (symbol = definition names, signature, stem/path, parts). */
  'w:symbol8': weighted({ symbol: 8 }),
  'w:symbol3': weighted({ symbol: 3 }),
  'w:signature4': weighted({ signature: 4 }),
  'w:signature1': weighted({ signature: 1 }),
  'w:stem3': weighted({ stem: 3 }),
  'w:stem10': weighted({ stem: 10 }),
  'w:path4': weighted({ path: 4 }),
  'w:path1': weighted({ path: 1 }),
  'w:parts1': weighted({ parts: 1 }),
  'w:parts.3': weighted({ parts: 0.3 }),
  /** Ranking II: the `doc` field (comments and docstrings, out of `body`; 1 weighs them as `body` did). */
  'w:doc0': weighted({ doc: 0 }),
  'w:doc.25': weighted({ doc: 0.25 }),
  'w:doc.5': weighted({ doc: 0.5 }),
  'w:doc.75': weighted({ doc: 0.75 }),
  'w:doc1.5': weighted({ doc: 1.5 }),
  'w:doc2': weighted({ doc: 2 }),
  'w:doc3': weighted({ doc: 3 }),
  /** The no-model prototype's fields: names ×4, signatures ×2, paths ×2, comments ×0.75. */
  'w:proto': weighted({ symbol: 4, signature: 2, path: 2, doc: 0.75 }),
  'w:doc.5+symbol4': weighted({ doc: 0.5, symbol: 4 }),
  'w:doc.5+symbol8': weighted({ doc: 0.5, symbol: 8 }),
  'w:doc.5+signature4': weighted({ doc: 0.5, signature: 4 }),
  'w:doc.5+signature1': weighted({ doc: 0.5, signature: 1 }),
  'w:doc.5+path4': weighted({ doc: 0.5, path: 4 }),
  'w:doc.5+path1': weighted({ doc: 0.5, path: 1 }),
  'w:doc2+symbol8': weighted({ doc: 2, symbol: 8 }),
  /** The `doc` field without the comments inside function bodies (they stay in `body`): its own index. */
  'chunk:inlineBody': { chunk: { inlineComments: 'body' } },
  'chunk:inlineBody+w:doc.5': { chunk: { inlineComments: 'body' }, search: { weights: { doc: 0.5 } } },
  /** Function-level units (issue 18): two adjacent definitions share a chunk only under `mergeDefinitions` bytes (shipped: maxBytes / 5 = 819). */
  'chunk:def0': { chunk: { mergeDefinitions: 0 } },
  'chunk:def200': { chunk: { mergeDefinitions: 200 } },
  'chunk:def400': { chunk: { mergeDefinitions: 400 } },
  'chunk:def600': { chunk: { mergeDefinitions: 600 } },
  'chunk:def1200': { chunk: { mergeDefinitions: 1200 } },
  'chunk:def1600': { chunk: { mergeDefinitions: 1600 } },
  'chunk:def0+blend.3': { chunk: { mergeDefinitions: 0 }, search: { ranking: { fileBlend: 0.3 } } },
  'chunk:def0+decay.95': { chunk: { mergeDefinitions: 0 }, search: { ranking: { fileDecay: 0.95 } } },
  'chunk:def0+blend.3+decay.95': { chunk: { mergeDefinitions: 0 }, search: { ranking: { fileBlend: 0.3, fileDecay: 0.95 } } },
  /** Issues 17/18: the learned ranker (models/ranker/weights.json) instead of the rules. */
  learned: ranking({ learned: true }),
  /** Issue 17: query expansion by term association (models/expand/), natural-language queries only. */
  '+expand.1': ranking({ expansion: 0.1 }),
  '+expand.2': ranking({ expansion: 0.2 }),
  '+expand.3': ranking({ expansion: 0.3 }),
  '+expand.5': ranking({ expansion: 0.5 }),
  '+expand.7': ranking({ expansion: 0.7 }),
  '+expand1': ranking({ expansion: 1 }),
  /**
   * Issue 18, per query kind (`search.ranking.byKind`): `k:` sets the same per-file steps for every
   * kind, read per kind with `--by-query-kind`; `sN`: a moved chunk goes below the next N files only.
   */
  ...kindVariants({
    'cap3w.7': { fileCap: 3, fileCapWithin: 0.7 },
    'cap3w.7+blend.3': { fileCap: 3, fileCapWithin: 0.7, fileBlend: 0.3 },
    'cap3w.7s2': { fileCap: 3, fileCapWithin: 0.7, fileCapSpread: 2 },
    'cap3w.7s4': { fileCap: 3, fileCapWithin: 0.7, fileCapSpread: 4 },
    'cap3w.5': { fileCap: 3, fileCapWithin: 0.5 },
    'cap2w.7': { fileCap: 2, fileCapWithin: 0.7 },
    'cap2s3': { fileCap: 2, fileCapSpread: 3 },
    'cap1s2': { fileCap: 1, fileCapSpread: 2 },
    'cap1s4': { fileCap: 1, fileCapSpread: 4 },
    'decay.8': { fileDecay: 0.8 },
    'decay.9': { fileDecay: 0.9 },
    'decay.95': { fileDecay: 0.95 },
    'blend.3': { fileBlend: 0.3 },
  }),
  /** Issue 18: the learned ranker for long queries only (it won on long commit messages, not on doc-comment queries). */
  'long:learned': ranking({ byKind: { long: { learned: true } } }),
  /** Issue 18: the candidates of the tuning half, for long queries only. */
  'long:decay.9': ranking({ byKind: { long: { fileDecay: 0.9 } } }),
  'long:cap3w.7s2': ranking({ byKind: { long: { fileCap: 3, fileCapWithin: 0.7, fileCapSpread: 2 } } }),
  /** Issue 18 (longvec): the model's score-level blend for long queries too (`search.fusion.blendByKind.long`; 0 shipped). */
  ...Object.fromEntries([0.1, 0.2, 0.3, 0.5, 1].map((w) => [`long:blend${String(w).replace(/^0/, '')}`, { search: { fusion: { blendByKind: { long: w } } } } as ConfigInput])),
  /** Issue 18 (longvec): the model's file prior for long queries (`search.fusion.filePrior.long`), `topN`: a file's score is the mean of its N best cosines, pieces: `max`/`mean` (search.fusion.filePriorPieces). */
  ...Object.fromEntries(
    [
      ['.2', 0.2, {}],
      ['.3', 0.3, {}],
      ['.4', 0.4, {}],
      ['.6', 0.6, {}],
      ['.4top3', 0.4, { filePriorTop: 3 }],
      ['.4max', 0.4, { filePriorPieces: 'max' }],
      ['.4top2mean', 0.4, { filePriorTop: 2, filePriorPieces: 'mean' }],
      ['.6mean', 0.6, { filePriorPieces: 'mean' }],
      ['.3mean', 0.3, { filePriorPieces: 'mean' }],
      ['.2max', 0.2, { filePriorPieces: 'max' }],
      ['.2mean', 0.2, { filePriorPieces: 'mean' }],
      ['.4mean', 0.4, { filePriorPieces: 'mean' }],
      ['.8', 0.8, {}],
      ['.8mean', 0.8, { filePriorPieces: 'mean' }],
      ['.3mean.p50', 0.3, { filePriorPieces: 'mean', filePriorPool: 50 }],
      ['.3mean.p200', 0.3, { filePriorPieces: 'mean', filePriorPool: 200 }],
      ['.3mean.p300', 0.3, { filePriorPieces: 'mean', filePriorPool: 300 }],
    ].map(([n, w, extra]) => [`long:prior${n as string}`, { search: { fusion: { filePrior: { long: w }, ...(extra as object) } } } as ConfigInput]),
  ),
  /**
   * Issue 18, long texts (file-score.ts): the file as one document (`fileScore` s: chunk ×
   * (1 − s + s × file BM25 / best)) and mentions (`mentionBoost` m: a file defining a name the text
   * writes as code × (1 + m × strength)), for long queries only, over the shipped decay 0.9.
   */
  ...Object.fromEntries(
    [
      ['files.2', { fileScore: 0.2 }],
      ['files.3', { fileScore: 0.3 }],
      ['files.5', { fileScore: 0.5 }],
      ['files.7', { fileScore: 0.7 }],
      ['mention.5', { mentionBoost: 0.5 }],
      ['mention1', { mentionBoost: 1 }],
      ['mention2', { mentionBoost: 2 }],
      ['files.3+mention1', { fileScore: 0.3, mentionBoost: 1 }],
      ['files.5+mention1', { fileScore: 0.5, mentionBoost: 1 }],
      ['files.5+mention.5', { fileScore: 0.5, mentionBoost: 0.5 }],
      ['files.7+mention1', { fileScore: 0.7, mentionBoost: 1 }],
      ['files.5+mention2', { fileScore: 0.5, mentionBoost: 2 }],
      ['files.7+mention2', { fileScore: 0.7, mentionBoost: 2 }],
      ['files1+mention1', { fileScore: 1, mentionBoost: 1 }],
      ['files.7+mention1+decay.85', { fileScore: 0.7, mentionBoost: 1, fileDecay: 0.85 }],
      ['files.7+mention1+decay.8', { fileScore: 0.7, mentionBoost: 1, fileDecay: 0.8 }],
    ].map(([name, s]) => [`long:${name as string}`, ranking({ byKind: { long: { fileDecay: 0.9, ...(s as object) } } })]),
  ),
  /** Issue 18 (longpool): the model's own file candidates join the file prior's pool (`filePriorRecall` N chunks per query vector, placed at the pool's score quantile `filePriorRecallAt`). */
  ...Object.fromEntries(
    [
      ['recall50', 50, 0],
      ['recall100', 100, 0],
      ['recall300', 300, 0],
      ['recall100at.5', 100, 0.5],
      ['recall300at.5', 300, 0.5],
      ['recall100at.8', 100, 0.8],
    ].map(([n, recall, at]) => [`long:${n as string}`, { search: { fusion: { filePriorRecall: recall, filePriorRecallAt: at } } } as ConfigInput]),
  ),
  /** Issue 18 (filerank): the learned file ranker orders the files of a long text's pool (`fileRanker`, models/ranker/file-weights.json), over the shipped long settings. */
  'long:filerank': ranking({ byKind: { long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1, fileRanker: true } } }),
  /** Issue 18 (companions): files tied to the first `companionAnchors` (an import either way, their package: 1; their directory: 0.5) score × (1 + companionBoost × weight), over the shipped long settings (src/search/companions.ts). */
  ...Object.fromEntries(
    ([[0.2, 1], [0.4, 1], [0.2, 2], [0.4, 2], [0.2, 3], [0.4, 3]] as const).map(([boost, anchors]) => [`long:comp${boost}a${anchors}`, ranking({ byKind: { long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1, companionBoost: boost, companionAnchors: anchors } } })]),
  ),
  'long:pool200': { search: { fusion: { filePriorPool: 200 } } } as ConfigInput,
  'long:pool300': { search: { fusion: { filePriorPool: 300 } } } as ConfigInput,
  /** Issue 18 (longterms): the words of long queries (`search.ranking.longTerms`: title/code weights, meta words, frames, term selection). */
  ...Object.fromEntries(
    [
      ['title0', { title: 0 }],
      ['title2', { title: 2 }],
      ['code2', { code: 2 }],
      ['title0code2', { title: 0, code: 2 }],
      ['meta', { metaWords: true }],
      ['frames', { frames: true }],
      ['max24', { maxGroups: 24 }],
      ['max30', { maxGroups: 30 }],
      ['max60', { maxGroups: 60 }],
      ['df.1', { maxDfRatio: 0.1 }],
      ['df.05', { maxDfRatio: 0.05 }],
      ['selw', { selectByWeight: true }],
      ['selw+max30', { selectByWeight: true, maxGroups: 30 }],
      ['meta+title0', { metaWords: true, title: 0 }],
      ['code0', { code: 0 }],
      ['df.5', { maxDfRatio: 0.5 }],
      ['df.3', { maxDfRatio: 0.3 }],
      ['rep1', { repeated: 1 }],
      ['title2+rep1', { title: 2, repeated: 1 }],
      ['title2+code2', { title: 2, code: 2 }],
      ['max60+df.3', { maxGroups: 60, maxDfRatio: 0.3 }],
      ['fences', { fences: true }],
      ['fileflat', { fileWeights: false }],
      ['codedef', { codeDefined: true }],
      ['rare.005', { rareRatio: 0.005 }],
      ['rare.001', { rareRatio: 0.001 }],
      ['rare.01', { rareRatio: 0.01 }],
      ['codedef+code2', { codeDefined: true, code: 2 }],
      ['fileflat+meta', { fileWeights: false, metaWords: true }],
      ['fences+meta', { fences: true, metaWords: true }],
      ['fences+frames', { fences: true, frames: true }],
    ].map(([name, s]) => [`lt:${name as string}`, ranking({ longTerms: s as object })]),
  ),
  /** Issue 18: the name match in the blend (`search.fusion.blendNames`), natural-language queries. */
  'names.1': { search: { fusion: { blendNames: 0.1 } } } as ConfigInput,
  'names.2': { search: { fusion: { blendNames: 0.2 } } } as ConfigInput,
  'names.3': { search: { fusion: { blendNames: 0.3 } } } as ConfigInput,
  'names.5': { search: { fusion: { blendNames: 0.5 } } } as ConfigInput,
  'names.7': { search: { fusion: { blendNames: 0.7 } } } as ConfigInput,
  names1: { search: { fusion: { blendNames: 1 } } } as ConfigInput,
  'blend.5': { search: { fusion: { blend: 0.5 } } } as ConfigInput,
  'names.5+blend.5': { search: { fusion: { blendNames: 0.5, blend: 0.5 } } } as ConfigInput,
  'names.5+blend.7': { search: { fusion: { blendNames: 0.5, blend: 0.7 } } } as ConfigInput,
  'names.5+list10': { search: { fusion: { blendNames: 0.5, blendNameDepth: 10 } } } as ConfigInput,
  'names.5+list20': { search: { fusion: { blendNames: 0.5, blendNameDepth: 20 } } } as ConfigInput,
  'names.7+list20': { search: { fusion: { blendNames: 0.7, blendNameDepth: 20 } } } as ConfigInput,
  'names1+list20': { search: { fusion: { blendNames: 1, blendNameDepth: 20 } } } as ConfigInput,
  /** The shipped configuration. */
  default: {},
  /** The shipped configuration without a short query's hyphenated compound searched as one identifier (`search.ranking.hyphenJoined`). */
  'default-hyphen': { search: { ranking: { hyphenJoined: false } } } as ConfigInput,
  /** The shipped configuration before the name match (issue 18): the blend of lexical score and cosine alone. */
  'default-names': { search: { fusion: { blendNames: 0 } } } as ConfigInput,
  /** Issue 18 (docfn): the best files' other chunks join the blend's candidates (`search.fusion.blendFileDepth`). */
  files1: { search: { fusion: { blendFileDepth: 1 } } } as ConfigInput,
  files2: { search: { fusion: { blendFileDepth: 2 } } } as ConfigInput,
  files3: { search: { fusion: { blendFileDepth: 3 } } } as ConfigInput,
  files5: { search: { fusion: { blendFileDepth: 5 } } } as ConfigInput,
  files8: { search: { fusion: { blendFileDepth: 8 } } } as ConfigInput,
  files3any: { search: { fusion: { blendFileDepth: 3, blendFileExpression: 'any' } } } as ConfigInput,
  /** Per-file steps for natural-language queries after the blend (`search.ranking.byKind.natural`). */
  'nat:decay.9': ranking({ byKind: { natural: { fileDecay: 0.9 } } }),
  'nat:decay.8': ranking({ byKind: { natural: { fileDecay: 0.8 } } }),
  'nat:cap3w.5': ranking({ byKind: { natural: { fileCap: 3, fileCapWithin: 0.5 } } }),
  'nat:cap2': ranking({ byKind: { natural: { fileCap: 2 } } }),
  /** Issue 18 (blendtune): the blend weights, the vector depth and the natural kind's per-file steps re-tuned on the widened large doc tune half. */
  'blend.2': { search: { fusion: { blend: 0.2 } } } as ConfigInput,
  'blend.7': { search: { fusion: { blend: 0.7 } } } as ConfigInput,
  'blend.2+names.3': { search: { fusion: { blend: 0.2, blendNames: 0.3 } } } as ConfigInput,
  'blend.5+names.7': { search: { fusion: { blend: 0.5, blendNames: 0.7 } } } as ConfigInput,
  'blend.5+names1': { search: { fusion: { blend: 0.5, blendNames: 1 } } } as ConfigInput,
  'blend.7+names1': { search: { fusion: { blend: 0.7, blendNames: 1 } } } as ConfigInput,
  'blend.3+names.7': { search: { fusion: { blend: 0.3, blendNames: 0.7 } } } as ConfigInput,
  'names1.5': { search: { fusion: { blendNames: 1.5 } } } as ConfigInput,
  names2: { search: { fusion: { blendNames: 2 } } } as ConfigInput,
  'blend.5+names1.5': { search: { fusion: { blend: 0.5, blendNames: 1.5 } } } as ConfigInput,
  'blend.5+names2': { search: { fusion: { blend: 0.5, blendNames: 2 } } } as ConfigInput,
  'blend.7+names1.5': { search: { fusion: { blend: 0.7, blendNames: 1.5 } } } as ConfigInput,
  'blend.4+names1': { search: { fusion: { blend: 0.4, blendNames: 1 } } } as ConfigInput,
  depth25: { search: { fusion: { depth: 25 } } } as ConfigInput,
  depth100: { search: { fusion: { depth: 100 } } } as ConfigInput,
  'nat:cap3w.7': ranking({ byKind: { natural: { fileCap: 3, fileCapWithin: 0.7 } } }),
  'nat:cap2s3': ranking({ byKind: { natural: { fileCap: 2, fileCapSpread: 3 } } }),
  'nat:cap3w.7s2': ranking({ byKind: { natural: { fileCap: 3, fileCapWithin: 0.7, fileCapSpread: 2 } } }),
  /** The shipped configuration before issue 18's per-kind default (long queries decay 0.95 as the rest, not 0.9). */
  'default-kinds': ranking({ byKind: {} }),
  /** The shipped configuration before issue 18's file prior (long queries ranked lexically, the model unused for them). */
  'default-filePrior': { search: { fusion: { filePrior: {} } } } as ConfigInput,
  /** The shipped configuration without issue 18's file evidence of long texts (the model's file prior alone). */
  'default-fileEvidence': ranking({ byKind: { long: { fileDecay: 0.9 } } }),
  /** Neither: long queries ranked as before issue 18's long-text work (lexical, decay 0.9). */
  'default-longTexts': { search: { ranking: { byKind: { long: { fileDecay: 0.9 } } }, fusion: { filePrior: {} } } } as ConfigInput,
  /** The shipped configuration without the model: BM25 ranking only, the vectors unused (`search.mode: 'lexical'`). */
  lexical: { search: { mode: 'lexical' } } as ConfigInput,
  /** The shipped configuration before issue 18's re-measurement (no per-file decay). */
  'default-decay': ranking({ fileDecay: 1 }),
};


function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

type Runs = Map<string, DevRow[]>;

interface RunOptions {
  readonly mirrors: string;
  /** Engine configurations (names of VARIANTS); the baseline is run apart when `baseline`. */
  readonly names: readonly string[];
  readonly baseline: boolean;
  readonly split: string;
  readonly only: readonly string[] | undefined;
  readonly kinds: readonly QueryKind[];
}

const wanted = (o: RunOptions, repo: string): boolean => (!o.only || o.only.includes(repo)) && (o.split === 'all' || splitOfRepo(repo) === o.split);

type Meta = Pick<DevRow, 'repo' | 'split' | 'kind' | 'namesGold' | 'goldFiles' | 'group' | 'queryKind'>;

/** The group of a set's rows: undefined for the development benchmark proper. */
const groupOf = (set: { readonly name: string }): string | undefined => (set.name === 'large' ? 'large' : undefined);

/** evalOne, plus how many distinct files the first 10 chunks show, and the files of a 20-chunk list (`cfile@k`). */
async function evalRow(engine: Engine, q: EvalQuery, meta: Meta): Promise<DevRow> {
  const r = await evalOne(engine, q);
  const answer = await engine.search(q.query, { limit: 10, rerank: false });
  const top = answer.results;
  const list = (await engine.search(q.query, { limit: CHUNK_LIST_DEPTH, rerank: false })).results;
  const first = top.map((h) => h.path);
  // a search that should have used the model and did not (another model's vectors, none, a model that fails to load) is counted, never silent
  const lexicalOnly = answer.meta.semantic.startsWith('lexical only') ? answer.meta.semantic : undefined;
  return { ...r, ...meta, distinctIn10: new Set(first).size, filesIn10: q.expected.every((g) => first.includes(g.path)), chunkFilesAt: chunkListFileHits(list, q.expected), ...listCost(top, q), ...(lexicalOnly ? { lexicalOnly } : {}) };
}

/** Lines a reader of the first 10 results pays, and whether one of them cites a gold function (devset-report.ts). */
function listCost(top: ReadonlyArray<{ path: string; startLine: number; endLine: number }>, q: EvalQuery): Pick<DevRow, 'linesIn10' | 'citesIn10'> {
  const lines = top.reduce((a, h) => a + h.endLine - h.startLine + 1, 0) / Math.max(1, top.length);
  const spans = q.expected.filter((g) => g.startLine !== undefined && g.endLine !== undefined);
  const cites = top.some((h) =>
    spans.some((g) => {
      const inside = Math.min(h.endLine, g.endLine!) - Math.max(h.startLine, g.startLine!) + 1;
      return inside > 0 && inside * 2 >= h.endLine - h.startLine + 1;
    }),
  );
  return { linesIn10: lines, citesIn10: cites };
}

function baselineRow(bm25: WindowBm25, q: EvalQuery, meta: Meta): DevRow {
  const started = performance.now();
  const hits = bm25.search(q.query, 50);
  const tookMs = Math.round((performance.now() - started) * 100) / 100;
  const first = hits.slice(0, 10).map((h) => h.path);
  return { id: q.id ?? q.query.slice(0, 40), tookMs, ...meta, ...scoreQuery(hits, q.expected), chunkFilesAt: chunkListFileHits(hits, q.expected), distinctIn10: new Set(first).size, filesIn10: q.expected.every((g) => first.includes(g.path)), ...listCost(hits.slice(0, 10), q) };
}

/**
 * Variants that change chunking (`chunk` in their config) search their own index: the key of the
 * index a variant needs, '' for the shipped chunking.
 */
export function chunkKey(name: string): string {
  const chunk = (VARIANTS[name] as { chunk?: Record<string, unknown> } | undefined)?.chunk;
  if (!chunk) return '';
  return Object.entries(chunk)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}${String(v)}`)
    .join('-');
}

/** The index (root and database) each chunking key searches. */
type Trees = (key: string) => { root: string; dbPath: string };

/** Every configuration over `group` in one tree; the order rotates by `turn`, so no variant always pays for a cold page cache. */
async function runGroup(o: RunOptions, treeOf: Trees, group: readonly EvalQuery[], kindOfQuery: (q: EvalQuery) => QueryKind, repo: string, turn: number, makeBaseline: (e: Engine) => Promise<WindowBm25>, byVariant: Runs, rowGroup?: string): Promise<void> {
  const split = splitOfRepo(repo);
  const meta = (q: EvalQuery): Meta => ({ repo, split, kind: kindOfQuery(q), namesGold: namesGoldFile(q.query, q.expected), goldFiles: new Set(q.expected.map((e) => e.path)).size, queryKind: classifyQuery(q.query, { long: isLongQuery(q.query) }), ...(rowGroup ? { group: rowGroup } : {}) });
  const names = [...o.names.slice(turn % o.names.length), ...o.names.slice(0, turn % o.names.length)];
  for (const name of names) {
    const tree = treeOf(chunkKey(name));
    const engine = await createEngine({ root: tree.root, db: tree.dbPath, env: {}, reroot: true, config: VARIANTS[name] });
    try {
      for (const q of group) byVariant.get(name)!.push(await evalRow(engine, q, meta(q)));
      if (o.baseline && name === names[0]) {
        const bm25 = await makeBaseline(engine);
        try {
          for (const q of group) byVariant.get(BASELINE)!.push(baselineRow(bm25, q, meta(q)));
        } finally {
          bm25.close();
        }
      }
    } finally {
      engine.close();
    }
  }
}

/** The chunking part of the configuration of the first variant with chunking key `key` (undefined: shipped). */
function chunkConfigOf(key: string, names: readonly string[]): ConfigInput | undefined {
  if (!key) return undefined;
  const name = names.find((n) => chunkKey(n) === key)!;
  return { chunk: (VARIANTS[name] as { chunk: ConfigInput['chunk'] }).chunk };
}

async function warmCache(mirror: string, cache: string, config: ConfigInput | undefined, commits: readonly string[]): Promise<void> {
  const trees = new CommitTrees(mirror, cache, config);
  try {
    for (const c of commits) await trees.at(c);
  } finally {
    await trees.close();
  }
}

async function runDevset(o: RunOptions, byVariant: Runs, set: DevSet = DEV_SET): Promise<void> {
  const cacheOfSet = (repo: string): string => cacheOf(repo, set);
  for (const r of set.repos) {
    const file = fileOf(r.repo, set);
    if (!wanted(o, r.repo) || !existsSync(file)) continue;
    const queries = parseQueriesFile(readFileSync(file, 'utf8'), file).filter((q) => o.kinds.includes(kindOf(q.query)));
    if (queries.length === 0) continue;
    const mirror = mirrorOf(o.mirrors, r.repo);
    // one set of commit trees (and index cache) per chunking
    const keys = [...new Set(o.names.map(chunkKey))];
    const commits = [...groupByCommit(queries).keys()];
    // CommitTrees of one mirror share its temporary worktree's name space: build each chunking's
    // cached indexes alone first, then search them side by side from the cache
    if (keys.length > 1) for (const k of keys) await warmCache(mirror, k ? `${cacheOfSet(r.repo)}-${k}` : cacheOfSet(r.repo), chunkConfigOf(k, o.names), commits);
    const trees = new Map(keys.map((k) => [k, new CommitTrees(mirror, k ? `${cacheOfSet(r.repo)}-${k}` : cacheOfSet(r.repo), chunkConfigOf(k, o.names))]));
    try {
      for (const [i, [commit, group]] of [...groupByCommit(queries)].entries()) {
        const at = new Map<string, { root: string; dbPath: string }>();
        for (const [k, t] of trees) {
          const e = await t.at(commit);
          at.set(k, { root: e.root, dbPath: e.dbPath });
        }
        await runGroup(o, (k) => at.get(k)!, group, (q) => kindOf(q.query), r.repo, i, (e) => baselineAtCommit(e, mirror, commit), byVariant, groupOf(set));
      }
    } finally {
      for (const t of trees.values()) await t.close();
    }
    process.stderr.write(`${set === DEV_SET ? '' : `${set.name} `}${r.repo}: ${queries.length} queries\n`);
  }
}

/** The doc-comment queries: each repository's blanked tree indexed once (bench/.nlslice-cache/), then searched by every variant. */
async function runNl(o: RunOptions, byVariant: Runs, set: NlSet = NL_SET): Promise<void> {
  if (!o.kinds.includes('doc')) return;
  for (const entry of readManifest(set)) {
    if (!wanted(o, entry.repo)) continue;
    const root = ensureNlTree(o.mirrors, entry, set);
    const dbs = new Map<string, string>();
    for (const k of new Set(o.names.map(chunkKey))) {
      const db = join(nlCacheOf(entry.repo, set), k ? `lexical-${k}.db` : 'lexical.db');
      const indexer = await createEngine({ root, db, env: {}, config: chunkConfigOf(k, o.names) });
      await indexer.index();
      indexer.close();
      dbs.set(k, db);
    }
    const queries = readNlQueries(entry.repo, set);
    await runGroup(o, (k) => ({ root, dbPath: dbs.get(k)! }), queries, () => 'doc', entry.repo, 0, (e) => baselineFromTree(e, root), byVariant, groupOf(set));
    process.stderr.write(`${set === NL_SET ? '' : `${set.name} `}doc ${entry.repo}: ${queries.length} queries\n`);
  }
}

async function main(): Promise<void> {
  const names = arg('--variants')?.split(',') ?? Object.keys(VARIANTS);
  for (const n of names) if (!VARIANTS[n]) throw new Error(`unknown variant ${n}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const kinds = (arg('--kinds')?.split(',') ?? KINDS) as QueryKind[];
  for (const k of kinds) if (!KINDS.includes(k)) throw new Error(`unknown kind ${k}; known: ${KINDS.join(', ')}`);
  const o: RunOptions = { mirrors: arg('--mirrors') ?? '/work/.mirror', names, baseline: !process.argv.includes('--no-baseline'), split: arg('--split') ?? 'all', only: arg('--only')?.split(','), kinds };
  const sets = (arg('--sets') ?? 'devset,nl').split(',');
  const all = o.baseline ? [BASELINE, ...names] : names;
  const byVariant: Runs = new Map(all.map((n) => [n, []]));
  if (sets.includes('devset')) await runDevset(o, byVariant);
  if (sets.includes('nl')) await runNl(o, byVariant);
  if (sets.includes('large')) {
    await runNl(o, byVariant, LARGE_DOC_SET);
    await runDevset(o, byVariant, LARGE_ISSUE_SET);
  }
  const splits: Split[] = o.split === 'all' ? ['tune', 'held-out'] : [o.split as Split];
  const ref = arg('--ref') ?? (names.includes('default') ? 'default' : names[0]);
  process.stdout.write(`${formatReport(byVariant, splits, ref)}\n`);
  if (process.argv.includes('--by-query-kind')) process.stdout.write(`${formatQueryKindReport(byVariant, splits, ref)}\n`);
  if (process.argv.includes('--misses')) {
    const last = byVariant.get(names[names.length - 1]!)!;
    for (const q of last.filter((x) => !x.accAt[5] && (o.split !== 'all' || x.split === 'tune'))) process.stdout.write(`MISS ${q.kind} ${q.repo} ${q.id}\n`);
  }
  writeResult('devset', { sets, kinds, variants: all, ref, rows: Object.fromEntries(byVariant) });
  guard(byVariant.get('default'), sets);
  modelUnused(byVariant);
}

/**
 * Fails the run when a search answered lexically because the model could not be used (the index's
 * vectors are another model's, there are none, the model does not load): the numbers would then
 * be the lexical ranking's under the model's name. bench/reembed.ts and bench/model-candidate.ts
 * make caches whose vectors match the checkout's model.
 */
function modelUnused(byVariant: Runs): void {
  for (const [name, rows] of byVariant) {
    const unused = rows.filter((r) => r.lexicalOnly !== undefined);
    if (unused.length === 0) continue;
    process.stdout.write(`MODEL NOT USED: ${name}: ${unused.length} of ${rows.length} searches answered lexically (${unused[0]!.repo}: ${unused[0]!.lexicalOnly})\n`);
    process.exitCode = 1;
  }
}

/**
 * `--record`: the default's held-out numbers become the guard; `--check`: fail when they regressed.
 * One record per group run (the development benchmark proper, the large group), each in its file.
 */
function guard(rows: readonly DevRow[] | undefined, sets: readonly string[]): void {
  const record = process.argv.includes('--record');
  if (!record && !process.argv.includes('--check')) return;
  if (!rows) throw new Error('--record and --check need the default variant (--variants default)');
  const groups: Array<[string | undefined, string]> = [];
  if (sets.includes('devset') || sets.includes('nl')) groups.push([undefined, GUARD_FILE]);
  if (sets.includes('large')) groups.push(['large', LARGE_GUARD_FILE]);
  for (const [group, file] of groups) {
    const now = guardRecord(rows, group);
    if (record) {
      writeGuard(now, file);
      process.stderr.write(`recorded ${file}\n`);
      continue;
    }
    const regressions = guardRegressions(readGuard(file), now);
    const name = group ? `guard (${group})` : 'guard';
    process.stdout.write(regressions.length === 0 ? `${name}: no held-out regression\n` : `${name}: REGRESSED\n${regressions.map((r) => `  ${r}`).join('\n')}\n`);
    if (regressions.length > 0) process.exitCode = 1;
  }
}

await main();
