/**
 * Lexical search of the team index: per repository head revision, the steps of
 * src/search/lexical-search.ts (query parsing, term selection, the query plan, FTS5's bm25, then
 * the pure ranking of rank.ts), with PostgreSQL in place of SQLite's FTS5 for statistics and
 * postings. Repositories are ranked each against its own statistics, as its own SQLite index would
 * rank it, and merged by score.
 */
import { DEFAULT_CONFIG } from '../config/defaults.js';
import type { FieldWeights, RankingConfig } from '../config/schema.js';
import { EngineError } from '../core/errors.js';
import { compileFilters } from '../search/filters.js';
import { kindRankingWhy, rankingForKind, withoutFileEvidence } from '../search/kind-ranking.js';
import { classifyQuery } from '../search/query-kind.js';
import { parseQuery } from '../search/query-parse.js';
import { planQuery, type PlanLevel } from '../search/query-plan.js';
import { addFileSupport, aggregateFiles, applyPriors, applyStructure, blendFileScore, capPerFile, decayPerFile, dedupeOverlaps, displayScore, FILE_SUPPORT_WEIGHT, queryWantsDocs, queryWantsTests, scoreFromBm25 } from '../search/rank.js';
import { applyRecency } from '../search/recency.js';
import { pdfCitation, type SearchResult } from '../search/search-result.js';
import { highlightTerms, makeSnippet } from '../search/snippet.js';
import { parseSubQueries } from '../search/sub-queries.js';
import { selectGroups, selectParamsFor, type DropReason } from '../search/term-select.js';
import type { FtsCandidate } from '../store/search-repo.js';
import type { QueryTokenizer } from './query-tokenizer.js';
import { documentFrequencies, matchCandidates, revisionPostings, type RevisionStats } from './pg-candidates.js';
import type { PgDb, Sql } from './pg-db.js';
import { restoredBody } from './pg-push.js';
import type { TeamSearchOptions, TeamSearchResponse, TeamSearchResult } from './team-store.js';

type Scored = FtsCandidate & { readonly score: number; readonly why?: readonly string[] };
export type Picked = { readonly hit: Scored; readonly score: number; readonly matches?: number; readonly rev: RevisionStats };

/** What one repository's ranking yields, before results are materialised. */
export interface RepoOutcome {
  readonly picked: Picked[];
  readonly terms: string[];
  readonly dropped: { raw: string; reason: DropReason }[];
  readonly long: boolean;
  readonly plan: PlanLevel['mode'];
  readonly marks: ReadonlySet<string>;
}

export interface RankParams {
  readonly query: string;
  readonly limit: number;
  readonly files: boolean;
  readonly weights: FieldWeights;
  readonly ranking: RankingConfig;
  readonly filter: ReturnType<typeof compileFilters>;
}

/** The typed lines a lexical list reads (the engine's `lexicalQuery`). */
function lexicalQuery(query: string): string {
  const subs = parseSubQueries(query);
  return subs.typed ? [subs.plain, ...subs.lex].filter((t) => t.trim() !== '').join('\n') : query;
}

/** One repository, as lexicalSearch ranks one SQLite index. */
async function rankRepo(sql: Sql, tok: QueryTokenizer, rev: RevisionStats, p: RankParams): Promise<RepoOutcome> {
  // as lexicalSearch, except `longTerms.frames` (local indexes only: it asks the index for each frame's file)
  const parsed = parseQuery(p.query, { weighLong: p.ranking.queryWeights, longTerms: p.ranking.longTerms, hyphenJoined: p.ranking.hyphenJoined });
  const words = [...new Set(parsed.groups.flatMap((g) => g.alternatives.flat()))];
  const stats = tok.tokenize(words);
  const df = await documentFrequencies(sql, rev, stats.map((s) => s.term));
  const dfByWord = new Map<string, number>();
  for (const s of stats) {
    const w = words[s.index]!;
    dfByWord.set(w, Math.min(dfByWord.get(w) ?? Infinity, df.get(s.term) ?? 0));
  }
  const selection = selectGroups(parsed.groups, (w) => dfByWord.get(w) ?? 0, rev.rows, selectParamsFor(parsed.long, p.ranking.longTerms));
  const terms = selection.kept.map((g) => g.raw);
  const empty = { picked: [], terms, dropped: [...selection.dropped], long: parsed.long, plan: 'any' as const, marks: new Set<string>() };
  if (selection.kept.length === 0) return empty;
  const w = p.weights;
  const weights = [w.stem, w.path, w.symbol, w.signature, w.body, w.parts, w.doc].map((x) => Number(Number(x).toFixed(4)));
  const fetch = p.files ? Math.max(p.limit * 10, 100) : Math.max(p.limit * 4, 40);
  const cost = (g: (typeof selection.kept)[number]): number => g.alternatives.reduce((n, alt) => n + Math.max(...alt.map((x) => dfByWord.get(x) ?? 0)), 0);
  const levels = planQuery(selection.kept.map((group) => ({ group, df: cost(group) })));
  // each phrase of an expression is an FTS5 string: the tokenizer makes its terms
  const phraseTerms = new Map<string, string[]>();
  const phrases = [...new Set(selection.kept.flatMap((g) => g.alternatives.map((a) => a.join(' '))))];
  const tokens = tok.tokenize(phrases);
  phrases.forEach((ph) => phraseTerms.set(ph, []));
  for (const t of tokens) phraseTerms.get(phrases[t.index]!)!.push(t.term);
  const postings = await revisionPostings(sql, rev, tokens.map((t) => t.term));
  let candidates: FtsCandidate[] = [];
  let plan: PlanLevel['mode'] = 'any';
  for (const level of levels) {
    candidates = await matchCandidates(sql, rev, level.expression, (ph) => phraseTerms.get(ph) ?? tok.tokenize([ph]).map((t) => t.term), postings, weights, fetch, p.filter);
    plan = level.mode;
    if (candidates.length >= fetch) break;
  }
  const keptWords = selection.kept.flatMap((g) => g.alternatives.flat());
  // the per-file steps of this query's kind (search.ranking.byKind), as lexicalSearch
  const kind = classifyQuery(p.query, parsed);
  const r = rankingForKind(p.ranking, kind);
  const priors = { longQuery: parsed.long, wantsTests: queryWantsTests(keptWords), wantsDocs: queryWantsDocs(keptWords, p.query, parsed.long), nonCode: r.nonCode, nonDefinition: r.nonDefinition };
  const names = new Set(selection.kept.filter((g) => g.kind === 'identifier' || g.kind === 'word').map((g) => g.alternatives[0]!.join('')));
  const structure = { names, definitionBoost: r.definitionBoost, testToSource: r.testToSource };
  const recency = { weight: 0, halfLifeDays: r.recencyHalfLifeDays, nowMs: 0 };
  const structured = applyRecency(applyStructure(applyPriors(candidates.map((c) => ({ ...c, score: scoreFromBm25(c.bm25) })), priors), structure), recency);
  const ranked = p.files ? structured : blendFileScore(addFileSupport(structured, r.fileSupport), r.fileBlend);
  // the per-file decay and cap shape a list of chunks; files mode scores each file from its undecayed chunks (as lexicalSearch)
  const deduped = dedupeOverlaps(ranked);
  const scored: Scored[] = p.files ? deduped : capPerFile(decayPerFile(deduped, r.fileDecay), r.fileCap, r.fileCapWithin, r.fileCapSpread);
  // the kind's own settings lead each explanation, after bm25 (as lexicalSearch)
  const kindWhy = kindRankingWhy(p.ranking, kind);
  const explained = (hit: Scored): Scored => (kindWhy === undefined ? hit : { ...hit, why: [kindWhy, ...(hit.why ?? [])] });
  const picked: Picked[] = p.files
    ? aggregateFiles(scored).slice(0, p.limit).map((f) => ({ hit: explained(f.best), score: f.score, matches: f.chunks, rev }))
    : scored.slice(0, p.limit).map((hit) => ({ hit: explained(hit), score: hit.score, rev }));
  return { picked, terms, dropped: [...selection.dropped], long: parsed.long, plan, marks: highlightTerms(keptWords) };
}

/** Head revisions of the named repositories (all when none are named); REPO_NOT_FOUND for an unknown name. */
export async function heads(sql: Sql, names: readonly string[] | undefined): Promise<RevisionStats[]> {
  const all = !names || names.length === 0;
  const rows = (
    await sql(
      `SELECT p.id, p.name, r.id AS revision, r.files, r.chunks, r.total_length FROM team_repos p LEFT JOIN team_revisions r ON r.id = p.head
       WHERE $1::boolean OR p.name = ANY($2::text[]) ORDER BY p.name`,
      [all, all ? [] : [...names]],
    )
  ).rows;
  if (!all) for (const n of names) if (!rows.some((r) => r['name'] === n)) throw new EngineError('REPO_NOT_FOUND', { repo: n });
  return rows
    .filter((r) => r['revision'] !== null && Number(r['chunks']) > 0)
    .map((r) => ({ repoId: Number(r['id']), name: String(r['name']), revision: Number(r['revision']), files: Number(r['files']), rows: Number(r['chunks']), tokens: Number(r['total_length']) }));
}

/** UTF-8 bytes [start, end) of the stored bodies, by (repository, content hash). */
async function chunkTexts(sql: Sql, picked: readonly Picked[]): Promise<Map<string, Buffer>> {
  const want = new Map<number, Set<string>>();
  for (const p of picked) (want.get(p.rev.repoId) ?? want.set(p.rev.repoId, new Set()).get(p.rev.repoId)!).add(p.hit.fileHash);
  const out = new Map<string, Buffer>();
  for (const [repo, hashes] of want) {
    const rows = (await sql('SELECT hash, body, nuls FROM team_contents WHERE repo_id = $1 AND hash = ANY($2::text[])', [repo, [...hashes]])).rows;
    for (const r of rows) out.set(`${repo}:${String(r['hash'])}`, Buffer.from(restoredBody(String(r['body']), r['nuls'] as number[] | null), 'utf8'));
  }
  return out;
}

function toResult(p: Picked, body: Buffer | undefined, marks: ReadonlySet<string>, explain: boolean): TeamSearchResult {
  const hit = p.hit;
  const text = body ? body.toString('utf8', hit.startByte, hit.endByte) : '';
  const snippet = makeSnippet(text, hit.startLine, marks, 4);
  const cite = pdfCitation(hit.path, hit.language, hit.container, hit.symbol);
  const why = explain
    ? { why: [`bm25 ${displayScore(scoreFromBm25(hit.bm25))}`, ...(hit.why ?? []), ...(p.matches !== undefined && p.score !== hit.score ? [`file: best + ${FILE_SUPPORT_WEIGHT} × next two = ${displayScore(p.score)}`] : [])] }
    : {};
  const result: SearchResult = {
    path: hit.path, startLine: hit.startLine, endLine: hit.endLine, score: displayScore(p.score), language: hit.language, contentType: hit.contentType,
    kind: hit.kind, symbol: hit.symbol, container: hit.container, signature: hit.signature, snippet: snippet.text, snippetLine: snippet.startLine,
    chunkHash: hit.chunkHash, ...(cite !== undefined ? { cite } : {}), ...(p.matches !== undefined ? { matches: p.matches } : {}), ...why,
  };
  return { ...result, repo: p.rev.name };
}

/** The ranked hits of every repository, merged by score (unrounded), best first; `k` of them. */
export interface TeamRanking {
  readonly revs: readonly RevisionStats[];
  readonly outcomes: readonly RepoOutcome[];
  readonly top: ReadonlyArray<{ readonly p: Picked; readonly marks: ReadonlySet<string> }>;
}

/** Checks and resolves the options of a team search into ranking parameters. */
export function teamRankParams(query: string, options: TeamSearchOptions, config = DEFAULT_CONFIG.search): RankParams {
  const k = options.k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > 100) throw new EngineError('INVALID_ARGUMENT', { name: 'k', reason: 'must be an integer from 1 to 100' });
  if (typeof query !== 'string') throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: 'must be a string' });
  if (options.filters?.where && Object.keys(options.filters.where).length > 0) throw new EngineError('INVALID_ARGUMENT', { name: 'where', reason: 'document field filters are not supported by the team index' });
  return { query: lexicalQuery(query), limit: k, files: options.files ?? false, weights: config.weights, ranking: withoutFileEvidence(config.ranking), filter: compileFilters(options.filters ?? {}) };
}

/** Ranks every named repository (inside one read snapshot `sql`) and merges them by score. */
export async function rankTeam(sql: Sql, tok: QueryTokenizer, params: RankParams, repos: readonly string[] | undefined): Promise<TeamRanking> {
  const revs = await heads(sql, repos);
  const outcomes: RepoOutcome[] = [];
  for (const rev of revs) outcomes.push(await rankRepo(sql, tok, rev, params));
  const picked = outcomes.flatMap((o, i) => o.picked.map((p) => ({ p, marks: o.marks, order: i })));
  picked.sort((a, b) => b.p.score - a.p.score || a.order - b.order);
  return { revs, outcomes, top: picked.slice(0, params.limit) };
}

/** Repositories ranked at once when a search covers several, each in its own read snapshot. */
const PARALLEL_REPOSITORIES = 4;

/**
 * Ranks each repository in its own REPEATABLE READ snapshot, up to `PARALLEL_REPOSITORIES` at a
 * time over the pool: every repository is read at one revision, whole (a push committing meanwhile
 * is seen for all of that repository or none of it), and merged by score as `rankTeam` merges.
 */
async function rankParallel(db: PgDb, tok: QueryTokenizer, params: RankParams, repos: readonly string[] | undefined): Promise<TeamRanking> {
  const names = (await db.read((sql) => heads(sql, repos))).map((r) => r.name);
  const ranked: Array<TeamRanking | undefined> = new Array(names.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const i = next++;
      ranked[i] = await db.read((sql) => rankTeam(sql, tok, params, [names[i]!]));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_REPOSITORIES, names.length) }, worker));
  const parts = ranked.filter((r): r is TeamRanking => r !== undefined);
  const revs = parts.flatMap((r) => r.revs);
  const outcomes = parts.flatMap((r) => r.outcomes);
  const picked = parts.flatMap((r, i) => r.top.map((t) => ({ ...t, order: i })));
  picked.sort((a, b) => b.p.score - a.p.score || a.order - b.order);
  return { revs, outcomes, top: picked.slice(0, params.limit) };
}

/** Team search over the head revisions of `options.repos` (all when absent). */
export async function searchTeam(db: PgDb, tok: QueryTokenizer, query: string, options: TeamSearchOptions = {}, config = DEFAULT_CONFIG.search): Promise<TeamSearchResponse> {
  const started = performance.now();
  const params = teamRankParams(query, options, config);
  const single = options.repos?.length === 1;
  const ranking = single ? undefined : await rankParallel(db, tok, params, options.repos);
  return db.read(async (sql) => {
    const { revs, outcomes, top } = ranking ?? (await rankTeam(sql, tok, params, options.repos));
    const texts = await chunkTexts(sql, top.map((t) => t.p));
    const results = top.map((t) => toResult(t.p, texts.get(`${t.p.rev.repoId}:${t.p.hit.fileHash}`), t.marks, options.explain ?? false));
    const first = outcomes[0];
    return {
      query,
      results,
      meta: {
        mode: 'lexical',
        semantic: 'the team index ranks lexically',
        terms: [...new Set(outcomes.flatMap((o) => o.terms))],
        droppedTerms: first ? first.dropped : [],
        longQuery: first?.long ?? false,
        plan: outcomes.find((o) => o.plan !== 'any')?.plan ?? 'any',
        filesAggregated: params.files,
        tookMs: Math.round((performance.now() - started) * 100) / 100,
        indexedFiles: revs.reduce((n, r) => n + r.files, 0),
        root: '',
        repos: revs.map((r) => ({ name: r.name, revision: r.revision })),
      },
    };
  });
}
