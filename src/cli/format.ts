import { MARK_CLOSE, MARK_OPEN, type DryRunReport, type IndexReport, type SearchResponse, type StatusReport } from '../index.js';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const CYAN = '\x1b[36m';
const RESET = '\x1b[0m';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

const num = (n: number): string => n.toLocaleString('en-US');

function counts(record: Partial<Record<string, number>>): string {
  const entries = Object.entries(record).filter((e): e is [string, number] => (e[1] ?? 0) > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k} ${num(v)}`).join(', ');
}

function renderMarks(text: string, color: boolean): string {
  const open = new RegExp(MARK_OPEN, 'g');
  const close = new RegExp(MARK_CLOSE, 'g');
  return color ? text.replace(open, BOLD).replace(close, RESET) : text.replace(open, '').replace(close, '');
}

export function formatSearch(response: SearchResponse, color: boolean): string {
  const lines = formatResults(response.results, color);
  const c = (code: string, s: string): string => (color ? `${code}${s}${RESET}` : s);
  const m = response.meta;
  const n = response.results.length;
  const dropped = m.droppedTerms.length > 0 ? ` · ${m.droppedTerms.length} term${m.droppedTerms.length === 1 ? '' : 's'} ignored` : '';
  const r = m.rerank;
  const rerank = r ? ` · reranked by ${r.provider} ${r.model} (${r.scored}/${r.candidates}${r.skipped ? `, ${r.skipped.reason}` : ''})` : '';
  lines.push(c(DIM, `${n === 0 ? 'no results' : `${n} result${n === 1 ? '' : 's'}`} · ${m.semantic}${rerank} · ${m.tookMs} ms${dropped}`));
  return `${lines.join('\n')}\n`;
}

/** Each result as its header, `why` and snippet lines; a result from a collection is cited `collection:path:lines`. */
export function formatResults(results: readonly SearchResponse['results'][number][], color: boolean): string[] {
  const lines: string[] = [];
  const c = (code: string, s: string): string => (color ? `${code}${s}${RESET}` : s);
  for (const r of results) {
    const where = `${r.collection !== undefined ? `${r.collection}:` : ''}${r.cite ?? `${r.path}:${r.startLine}-${r.endLine}`}`;
    const label = [r.container, r.symbol].filter(Boolean).join(' > ');
    const extra = r.matches !== undefined ? ` · ${r.matches} matching chunk${r.matches === 1 ? '' : 's'}` : '';
    lines.push(`${c(CYAN, where)} ${c(DIM, `${r.language} · score ${r.score.toFixed(2)}${extra}`)}${label ? `  ${label}` : ''}`);
    if (r.why) lines.push(c(DIM, `       why: ${r.why.join(' · ')}`));
    r.snippet.split('\n').forEach((l, i) => {
      lines.push(`${c(DIM, String(r.snippetLine + i).padStart(6))} │ ${renderMarks(l, color)}`);
    });
    lines.push('');
  }
  return lines;
}

/**
 * The embedding pass after an index pass, when a provider is configured. A failure is said in
 * human output too (issue 24: `scry index` showed it only with --json): search stays lexical.
 */
function formatEmbedding(e: NonNullable<IndexReport['embedding']>): string {
  if ('error' in e) return `embedding failed [${e.error.code}]: ${e.error.message} (search stays lexical; what was embedded is kept; \`scry embed\` resumes)\n`;
  const secs = e.durationMs / 1000;
  const rate = e.embedded > 0 && secs > 0 ? ` (${(e.embedded / secs).toFixed(1)} texts/s)` : '';
  return `embedded ${e.embedded} chunk texts with ${e.model.provider}:${e.model.model} (${e.model.dimensions}-d) in ${secs.toFixed(1)} s${rate} · ${e.covered}/${e.chunks} chunks have vectors${e.removed > 0 ? ` · ${e.removed} stale vectors removed` : ''}\n`;
}

export function formatIndexReport(r: IndexReport): string {
  const secs = r.durationMs / 1000;
  const rate = secs > 0 ? ` (${(r.bytesIndexed / 1024 / 1024 / secs).toFixed(1)} MB/s)` : '';
  return (
    `indexed ${num(r.filesIndexed)} file${r.filesIndexed === 1 ? '' : 's'}, ${num(r.chunksWritten)} chunks, ${formatBytes(r.bytesIndexed)} in ${secs.toFixed(2)} s${rate}\n` +
    `unchanged ${num(r.filesUnchanged)} · touched ${num(r.filesTouched)} · reused ${num(r.filesReused)} · removed ${num(r.filesRemoved)} · skipped: ${counts(r.skipped)}\n` +
    (r.embedding ? formatEmbedding(r.embedding) : '')
  );
}

export function formatDryRun(r: DryRunReport): string {
  const lines = [`would index ${num(r.files)} files (${formatBytes(r.bytes)}) under ${r.root}`, `languages: ${counts(r.languages)}`, 'top directories:'];
  const width = Math.max(4, ...r.topDirectories.map((d) => d.dir.length));
  for (const d of r.topDirectories) lines.push(`  ${d.dir.padEnd(width)}  ${num(d.files).padStart(7)} files  ${formatBytes(d.bytes).padStart(9)}`);
  lines.push(`skipped files: ${counts(r.skippedFiles)}`, `skipped directories: ${counts(r.skippedDirectories)}`);
  for (const [reason, examples] of Object.entries(r.examples)) if (examples?.length) lines.push(`  ${reason}: ${examples.join(', ')}`);
  if (r.secrets.length > 0) lines.push(`secrets (never indexed): ${r.secrets.map((s) => `${s.path} (${s.why})`).join(', ')}`);
  if (r.redactedFiles > 0) lines.push(`redacted (indexed with token literals replaced): ${num(r.redactedFiles)} file(s)`, ...r.redacted.map((f) => `  ${f.path}: ${counts(f.rules)}`));
  return `${lines.join('\n')}\n`;
}

/** `runtimes:  onnx installed · use-lite not installed (npm install -g …)`. */
function formatRuntimes(s: StatusReport): string {
  const missing = s.runtimes.filter((r) => !r.installed).flatMap((r) => r.packages);
  const each = s.runtimes.map((r) => `${r.name} ${r.installed ? 'installed' : 'not installed'}`).join(' · ');
  return `runtimes:  ${each}${missing.length > 0 ? ` (optional; add with \`npm install -g ${missing.join(' ')}\`)` : ''}`;
}

/** `lsp:       off (...)`, or one line per language server: found, running, failed (reason), missing (install hint). */
function formatLanguageServers(s: StatusReport): string[] {
  const { enabled, servers } = s.languageServers;
  const found = servers.filter((x) => x.state !== 'missing').map((x) => x.name);
  if (!enabled) return [`lsp:       off (set "lsp": {"enabled": true} in scry.config.json)${found.length > 0 ? `; installed: ${found.join(', ')}` : ''}`];
  return servers.map((x) => {
    const detail = x.state === 'running' ? ` (pid ${x.pid})` : x.state === 'found' ? ` (${x.command})` : ` (${x.reason ? `${x.reason}; ` : ''}install: ${x.hint})`;
    return `lsp:       ${x.name} ${x.state}${detail}`;
  });
}

export function formatStatus(s: StatusReport): string {
  if (!s.indexed) return `no index yet for ${s.root ?? '(unknown root)'}\ndatabase: ${s.dbPath}\nrun \`scry index\` to build it\n${formatRuntimes(s)}\n${formatLanguageServers(s).join('\n')}\n`;
  return [
    `root:      ${s.root}`,
    `database:  ${s.dbPath} (${formatBytes(s.dbBytes)}, schema ${s.schemaVersion}${s.featureVersionCurrent ? '' : ', chunking outdated: next pass re-chunks'})`,
    `files:     ${num(s.files)} (${formatBytes(s.bytes)}) · chunks ${num(s.chunks)}`,
    `languages: ${counts(s.languages)}`,
    `types:     ${counts(s.contentTypes)}`,
    `symbols:   ${num(s.structure.symbols)} · imports ${num(s.structure.imports)} · parsers: ${counts(s.structure.parsers)}`,
    ...s.structure.fallbacks.map((f) => `fallback:  ${f.language}: ${num(f.files)} file(s) chunked by line windows (${f.reason}), e.g. ${f.example}`),
    `last pass: ${s.lastPassAt} · skipped: ${counts(s.lastPassSkipped)}`,
    ...(s.redacted.files > 0 ? [`redacted:  ${num(s.redacted.files)} file(s) indexed with token literals replaced`, ...s.redacted.list.map((f) => `  ${f.path}: ${counts(f.rules)}`)] : []),
    `search:    lexical ${s.capabilities.lexical ? 'ready' : 'not ready'} · ${s.capabilities.semantic ? 'semantic ready' : s.capabilities.semanticReason}`,
    `writer:    ${s.writer ? `pid ${s.writer.pid} since ${s.writer.since}` : 'none'}`,
    formatRuntimes(s),
    ...formatLanguageServers(s),
    '',
  ].join('\n');
}
