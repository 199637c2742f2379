import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EMBED_PROVIDERS as PROVIDERS, EngineError, terminalPreferences, type ConfigInput, type Engine } from '../../index.js';
import { formatIndexReport, formatSearch } from '../format.js';
import type { CliIO } from '../io.js';
import { openEngine } from '../open-engine.js';
import { ensureIndexed } from '../ensure-index.js';
import { parseIntFlag } from '../flags.js';

interface EmbedFlags {
  db?: string;
  provider?: string;
  model?: string;
  url?: string;
  json?: boolean;
}

interface SimilarFlags {
  db?: string;
  root?: string;
  k?: string;
  lang?: string;
  json?: boolean;
  color?: boolean;
}

/** `--provider`/`--model`/`--url` as config overrides for this run (scry.config.json's `embed` otherwise). */
function embedOverrides(flags: EmbedFlags): ConfigInput | undefined {
  if (flags.provider === undefined) {
    if (flags.model !== undefined || flags.url !== undefined) throw new EngineError('INVALID_ARGUMENT', { name: '--model', reason: '--model and --url need --provider' });
    return undefined;
  }
  const provider = flags.provider as (typeof PROVIDERS)[number];
  if (!PROVIDERS.includes(provider)) throw new EngineError('INVALID_ARGUMENT', { name: '--provider', reason: `must be one of ${PROVIDERS.join(', ')}` });
  const model = flags.model;
  switch (provider) {
    case 'ollama':
      return { embed: { provider, ollama: { ...(model ? { model } : {}), ...(flags.url ? { baseUrl: flags.url } : {}) } } };
    case 'openai':
      if (!model || !flags.url) throw new EngineError('INVALID_ARGUMENT', { name: '--provider', reason: 'openai needs --model and --url (the API root, e.g. http://localhost:8080/v1)' });
      return { embed: { provider, openai: { model, baseUrl: flags.url } } };
    case 'onnx':
      if (!model) throw new EngineError('INVALID_ARGUMENT', { name: '--provider', reason: 'onnx needs --model: a pulled model id (owner/name) or a model directory' });
      return { embed: { provider, onnx: model.includes('/') && !model.startsWith('.') && !model.startsWith('/') && model.split('/').length === 2 ? { model } : { modelDir: resolve(model) } } };
    case 'builtin':
    case 'use-lite':
      return { embed: { provider } };
  }
}

export async function embedCommand(io: CliIO, dir: string | undefined, flags: EmbedFlags): Promise<number> {
  const engine: Engine = await openEngine(io, { dir, db: flags.db, config: embedOverrides(flags), orCwd: true });
  try {
    let last = -1;
    const report = await engine.embed({
      onHandoff: (owner) => io.err(`scry: pid ${owner.pid} writes this index; it embeds in the background (see scry status)\n`),
      onEmbedProgress: (p) => {
        if (!io.stderrIsTTY || flags.json) return;
        const pct = p.total === 0 ? 100 : Math.floor((100 * p.done) / p.total);
        if (pct !== last) io.err(`\rembedding ${p.done}/${p.total} (${pct}%)`);
        last = pct;
      },
    });
    if (last >= 0) io.err('\n');
    io.out(flags.json ? `${JSON.stringify({ root: engine.root, db: engine.dbPath, ...report }, null, 2)}\n` : formatIndexReport(report) + (report.embedding ? '' : 'embedding: nothing to do (no provider configured)\n'));
    return report.embedding && 'error' in report.embedding ? 1 : 0;
  } finally {
    engine.close();
  }
}

/** `FILE`, `FILE:START-END` or `-` (stdin) → the snippet, and the file to leave out of the results. */
function readSnippet(io: CliIO, target: string, stdin: string): { text: string; exclude?: string } {
  if (target === '-') return { text: stdin };
  const m = /^(.*?):(\d+)-(\d+)$/.exec(target);
  const path = m ? m[1]! : target;
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, path), 'utf8');
  } catch (err) {
    throw new EngineError('FILE_NOT_FOUND', { path, reason: (err as Error).message });
  }
  if (m) {
    const [start, end] = [Number(m[2]), Number(m[3])];
    if (start < 1 || end < start) throw new EngineError('INVALID_ARGUMENT', { name: 'FILE:START-END', reason: 'needs 1 <= START <= END' });
    text = text.split('\n').slice(start - 1, end).join('\n');
  }
  return { text, exclude: path };
}

export async function similarCommand(io: CliIO, target: string, flags: SimilarFlags): Promise<number> {
  const limit = parseIntFlag(flags.k, '-k', 100);
  const engine = await openEngine(io, { dir: flags.root, db: flags.db });
  try {
    const { text, exclude } = readSnippet(io, target, target === '-' ? await io.readStdin() : '');
    await ensureIndexed(io, engine, flags.json);
    const rel = exclude ? resolve(io.cwd, exclude).slice(engine.root.length + 1) : undefined;
    const response = await engine.similar(text, { limit, language: flags.lang, excludeFile: rel });
    io.out(flags.json ? `${JSON.stringify(response, null, 2)}\n` : formatSearch(response, (flags.color ?? true) && (io.color ?? terminalPreferences().color) && io.stdoutIsTTY));
    return 0;
  } finally {
    engine.close();
  }
}

/** `scry embed` and `scry similar`. */
