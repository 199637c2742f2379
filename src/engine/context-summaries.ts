/**
 * Repository, folder and file summaries for a context pack (seed 004 §8.4, step 4: "only if
 * needed"). They are extractive, built from the index alone (no model): the project summary is the
 * repo map personalised toward the evidence files and the query; a folder summary lists the
 * folder's files; a file summary gives the file's language, size, importers and tests and its
 * top-level definitions by signature. The pack places them after every chunk, so they only fill
 * budget the retrieved code left over.
 */
import type { RepoMap, RepoMapRequest } from '../context/repo-map.js';
import type { EvidenceInput } from '../context/evidence-merge.js';
import type { FileOutline } from '../search/outline.js';
import type { FileListing, ListFilesOptions } from './engine-api.js';

export interface SummaryDeps {
  outline(path: string): Promise<FileOutline>;
  repoMap(options: RepoMapRequest): Promise<RepoMap>;
  listFiles(options: ListFilesOptions): Promise<FileListing>;
}

/** File summaries for at most this many evidence files, folder summaries for this many folders. */
const MAX_FILE_SUMMARIES = 6;
const MAX_FOLDER_SUMMARIES = 3;
const MAX_SYMBOLS = 12;
const MAX_FOLDER_NAMES = 30;
/** The repo map takes at most this many tokens, and at most half of what is left. */
const MAX_MAP_TOKENS = 1024;
const MIN_MAP_TOKENS = 64;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `language, N lines; imported by N files; tests: …` then one line per top-level definition. */
export function fileSummaryText(o: FileOutline): string {
  const facts = [`${o.language}, ${plural(o.lines, 'line')}`];
  if (o.isTest) facts.push(`tests ${o.testedFiles.join(', ') || 'this project'}`);
  if (o.importedBy.length > 0) facts.push(`imported by ${plural(new Set(o.importedBy.map((i) => i.path)).size, 'file')}`);
  if (!o.isTest && o.tests.length > 0) facts.push(`tests: ${o.tests.slice(0, 3).join(', ')}`);
  const top = o.symbols.filter((s) => s.container === null);
  const shown = [...top.filter((s) => s.exported), ...top.filter((s) => !s.exported)].slice(0, MAX_SYMBOLS).sort((a, b) => a.startLine - b.startLine);
  const lines = shown.map((s) => `${s.startLine}: ${s.signature ?? `${s.kind} ${s.name}`}`);
  if (top.length > shown.length) lines.push(`… ${plural(top.length - shown.length, 'more definition')}`);
  return [facts.join('; '), ...lines].join('\n');
}

function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

async function folderSummary(deps: SummaryDeps, folder: string): Promise<EvidenceInput | undefined> {
  const listing = await deps.listFiles({ glob: folder === '.' ? '*' : `${folder}/*`, limit: MAX_FOLDER_NAMES });
  if (listing.files.length === 0) return undefined;
  const names = listing.files.map((f) => f.path.slice(folder === '.' ? 0 : folder.length + 1));
  const more = listing.total > names.length ? `, … ${listing.total - names.length} more` : '';
  return { path: folder === '.' ? './' : `${folder}/`, startLine: 1, endLine: 1, kind: 'summary', text: `${plural(listing.total, 'file')}: ${names.join(', ')}${more}` };
}

/**
 * Summaries for a pack whose evidence came from `files` (best first), for about `tokens` of
 * budget left: the project's repo map (sized to half of it), then folder and file summaries. A
 * summary that cannot be built (a file left the index since) is skipped.
 */
export async function summaryEvidence(deps: SummaryDeps, query: string, files: readonly string[], tokens: number): Promise<EvidenceInput[]> {
  const out: EvidenceInput[] = [];
  const mapTokens = Math.min(MAX_MAP_TOKENS, Math.floor(tokens / 2));
  if (mapTokens >= MIN_MAP_TOKENS) {
    const map = await deps.repoMap({ tokens: mapTokens, focus: files.slice(0, 10), query: query.slice(0, 2000) }).catch(() => undefined);
    if (map && map.text.trim() !== '') out.push({ path: './', startLine: 1, endLine: 1, kind: 'summary', text: map.text, symbol: 'repo map' });
  }
  for (const folder of [...new Set(files.map(folderOf))].slice(0, MAX_FOLDER_SUMMARIES)) {
    const summary = await folderSummary(deps, folder).catch(() => undefined);
    if (summary) out.push(summary);
  }
  for (const path of files.slice(0, MAX_FILE_SUMMARIES)) {
    const outline = await deps.outline(path).catch(() => undefined);
    if (outline) out.push({ path, startLine: 1, endLine: Math.max(outline.lines, 1), kind: 'summary', text: fileSummaryText(outline) });
  }
  return out;
}
