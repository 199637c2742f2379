import { EngineError } from '../core/errors.js';
import { buildContextPack } from '../context/context-pack.js';
import type { EvidenceInput } from '../context/evidence-merge.js';
import type { CurrentFile } from '../context/pack-sections.js';
import { estimateTokens, loadTokenCounter, type TokenCounter } from '../context/tokens.js';
import type { SearchResponse } from '../search/search-result.js';
import type { SymbolHit } from '../search/symbol-search.js';
import type { FileSlice, ReadFileOptions } from '../workspace/files.js';
import type { ContextOptions, SearchOptions, SymbolOptions, TaskContext } from './engine-api.js';
import { summaryEvidence, type SummaryDeps } from './context-summaries.js';

/** What building a task's context needs from the engine. */
export interface ContextDeps extends SummaryDeps {
  search(query: string, options: SearchOptions): Promise<SearchResponse>;
  symbols(name: string, options: SymbolOptions): Promise<SymbolHit[]>;
  readFile(path: string, options: ReadFileOptions): Promise<FileSlice>;
  /** Lines of a file as indexed (what chunk spans refer to). */
  readStored(path: string, startLine: number, endLine: number): Promise<string>;
  /** Definitions of the symbols around the cursor, resolved by a language server (lsp-context.ts); ranked before search results. */
  definitionsNear?: ((current: NonNullable<ContextOptions['current']>) => Promise<EvidenceInput[]>) | undefined;
}

export const DEFAULT_CONTEXT_TOKENS = 8000;
const DEFAULT_CANDIDATES = 30;
/** Lines read each side of the cursor (the pack's window is at most 401 lines), up to 200 KB. */
const CURRENT_FILE_HALF_WINDOW = 200;
const CURRENT_FILE_MAX_BYTES = 200_000;
/** No one chunk takes more than this share of the budget (it is cut to its first lines). */
const MAX_PIECE_SHARE = 0.3;
/** The query, as the pack's task goal, takes at most this share of the budget (it is cut at its end). */
const MAX_GOAL_SHARE = 0.25;
/** Summaries are added when at least this much budget is left after every retrieved piece. */
const MIN_SUMMARY_TOKENS = 200;
/** Query words looked up as symbol names for signature evidence. */
const MAX_SIGNATURE_NAMES = 8;

function intOption(name: string, value: number | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) throw new EngineError('INVALID_ARGUMENT', { name, reason: `must be an integer from ${min} to ${max}` });
  return value;
}

/**
 * Words of the query written as code, in order, once each: camelCase or PascalCase with an inner
 * capital, snake_case, with digits, or called (`name(`). Plain words (`open`, `database`) would
 * look up every method of that name in the repository.
 */
function identifiers(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/[A-Za-z_$][A-Za-z0-9_$]{2,}(\()?/g)) {
    const word = m[0].replace(/\($/, '');
    const codeLike = m[1] !== undefined || /[a-z][A-Z]|[A-Z][a-z]+[A-Z]|_|\d/.test(word);
    if (codeLike && !out.includes(word)) out.push(word);
  }
  return out.slice(0, 40);
}

/**
 * A chunk cut to its first lines so that it takes at most `cap` tokens (estimated): one large
 * chunk must not crowd every other piece out of a small budget. Chunks are definition-sized, so
 * this only bites when the budget is small.
 */
function capChunk(text: string, startLine: number, cap: number): { text: string; endLine: number } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (estimateTokens(text) <= cap) return { text, endLine: startLine + Math.max(lines.length, 1) - 1 };
  let used = 0;
  let keep = 0;
  while (keep < lines.length && used + estimateTokens(`${lines[keep]}\n`) <= cap) used += estimateTokens(`${lines[keep++]}\n`);
  keep = Math.max(keep, 1);
  return { text: lines.slice(0, keep).join('\n'), endLine: startLine + keep - 1 };
}

/**
 * Signatures of the symbols the query names exactly, best first: the §8.4 "relevant symbol
 * signatures (signatures, not bodies)", cheap evidence that lets an agent call the right thing.
 */
async function signatureEvidence(deps: ContextDeps, query: string): Promise<EvidenceInput[]> {
  const out: EvidenceInput[] = [];
  let looked = 0;
  for (const word of identifiers(query)) {
    if (looked >= MAX_SIGNATURE_NAMES) break;
    const hits = await deps.symbols(word, { limit: 3 });
    const exact = hits.filter((h) => h.match === 'exact' && h.name === word && h.signature);
    if (exact.length > 0) looked++;
    for (const h of exact) out.push({ path: h.path, startLine: h.startLine, endLine: h.startLine, text: h.signature!, kind: 'signature', symbol: h.container ? `${h.container}.${h.name}` : h.name });
  }
  return out;
}

/**
 * The lines around the cursor, wherever it is in the file: a slice of up to 200 lines each side
 * (at most 200 KB), placed by its first line. A cursor past the end stands on the last line.
 */
/**
 * The query as the pack's goal: whole when it takes at most `cap` tokens, else its longest prefix
 * that does (binary search on characters) with a marker. A long issue text must not make the pack
 * `TOO_LARGE`; the search still uses all of it.
 */
function goalOf(query: string, counter: TokenCounter, cap: number): { goal: string; trimmed: boolean } {
  if (counter.count(query) <= cap) return { goal: query, trimmed: false };
  const MARK = ' […]';
  let lo = 0;
  let hi = query.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(query.slice(0, mid) + MARK) <= cap) lo = mid;
    else hi = mid - 1;
  }
  return { goal: query.slice(0, lo).trimEnd() + MARK, trimmed: true };
}

async function currentFile(deps: ContextDeps, current: NonNullable<ContextOptions['current']>): Promise<CurrentFile> {
  const wanted = current.line === undefined ? 1 : intOption('current.line', current.line, 1, Number.MAX_SAFE_INTEGER, 1);
  const around = (line: number): Promise<FileSlice> => deps.readFile(current.path, { startLine: Math.max(1, line - CURRENT_FILE_HALF_WINDOW), endLine: line + CURRENT_FILE_HALF_WINDOW, maxBytes: CURRENT_FILE_MAX_BYTES });
  let slice = await around(wanted).catch(async (err: unknown) => {
    if (!(err instanceof EngineError) || err.code !== 'INVALID_ARGUMENT' || err.data.name !== 'start_line') throw err;
    const head = await deps.readFile(current.path, { startLine: 1, endLine: 1 });
    return around(head.totalLines);
  });
  const line = Math.min(wanted, slice.totalLines);
  // long lines stopped the slice at 200 KB before the cursor: start at the cursor instead
  if (line > slice.endLine) slice = await deps.readFile(current.path, { startLine: line, endLine: line + CURRENT_FILE_HALF_WINDOW, maxBytes: CURRENT_FILE_MAX_BYTES });
  return { path: slice.path, text: slice.text, cursorLine: Math.min(line, slice.endLine), firstLine: slice.startLine, totalLines: slice.totalLines };
}

/** The token budget of a context request, or INVALID_ARGUMENT (checked before any index is opened). */
export function checkContextRequest(query: unknown, options: Pick<ContextOptions, 'tokens'>): number {
  if (typeof query !== 'string' || query.trim() === '') throw new EngineError('INVALID_ARGUMENT', { name: 'query', reason: 'must be a non-empty string' });
  return intOption('tokens', options.tokens, 256, 100_000, DEFAULT_CONTEXT_TOKENS);
}

/**
 * The pack for a query (seed 004 §8.4): a "you are here" window of the current file, the
 * signatures of symbols the query names, then the retrieved chunks whole (merged, deduplicated,
 * at most `maxPiecesPerFile` per file, cited with their content hash), all inside `tokens` (o200k).
 */
export async function buildTaskContext(deps: ContextDeps, query: string, options: ContextOptions): Promise<TaskContext> {
  const tokens = checkContextRequest(query, options);
  const candidates = intOption('candidates', options.candidates, 1, 100, DEFAULT_CANDIDATES);
  const maxPiecesPerFile = intOption('maxPiecesPerFile', options.maxPiecesPerFile, 1, 20, 2);
  const [counter, response, signatures, file, definitions] = await Promise.all([
    loadTokenCounter(),
    deps.search(query, { limit: candidates, language: options.language, signal: options.signal }),
    signatureEvidence(deps, query),
    options.current ? currentFile(deps, options.current) : Promise.resolve(undefined),
    options.current && deps.definitionsNear ? deps.definitionsNear(options.current) : Promise.resolve([]),
  ]);
  const chunks: EvidenceInput[] = [];
  const cap = Math.max(64, Math.floor(tokens * MAX_PIECE_SHARE));
  for (const r of response.results) {
    const stored = await deps.readStored(r.path, r.startLine, r.endLine);
    if (stored === '') continue; // the file left the index since the search
    const { text, endLine } = capChunk(stored, r.startLine, cap);
    chunks.push({ path: r.path, startLine: r.startLine, endLine, text, hash: r.chunkHash.slice(0, 12), score: r.score, symbol: r.symbol ?? undefined, kind: 'chunk' });
  }
  const { goal, trimmed } = goalOf(query, counter, Math.floor(tokens * MAX_GOAL_SHARE));
  const input = { task: { goal }, workspace: file ? { currentFile: file } : undefined, evidence: [...definitions, ...signatures, ...chunks] };
  let pack = buildContextPack(input, { counter, budget: tokens, maxPiecesPerFile });
  // step 4 of §8.4: summaries only when every piece fit and budget is left
  const left = tokens - pack.tokens.total;
  if (left >= MIN_SUMMARY_TOKENS && !pack.omitted.some((o) => o.section === 'evidence' && o.reason !== 'duplicate')) {
    const files = pack.sections.evidence.map((g) => g.path);
    const summaries = await summaryEvidence(deps, query, files.length > 0 ? files : file ? [file.path] : [], left);
    if (summaries.length > 0) pack = buildContextPack({ ...input, evidence: [...input.evidence, ...summaries] }, { counter, budget: tokens, maxPiecesPerFile });
  }
  const omitted = trimmed ? [{ section: 'task' as const, label: 'goal', reason: 'trimmed' as const }, ...pack.omitted] : pack.omitted;
  return { ...pack, omitted, query, candidates: chunks.length };
}
