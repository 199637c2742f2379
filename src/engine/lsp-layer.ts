import type { ResolvedConfig } from '../config/resolve.js';
import { EngineError, isEngineError } from '../core/errors.js';
import type { Logger, Scheduler } from '../core/logger.js';
import { fromLspDiagnostic, locationsAt, workspaceSymbols, type FileDiagnostic, type SourcePosition, type WorkspaceSymbolHit } from '../lsp/lsp-queries.js';
import type { LspClient } from '../lsp/lsp-client.js';
import { LspPool, type LanguageServerStatus } from '../lsp/lsp-pool.js';
import { languageIdOf } from '../lsp/server-table.js';
import { loadTypeScript, typeScriptDiagnostics } from '../lsp/ts-diagnostics.js';
import { uriOf } from '../lsp/uri-paths.js';
import type { FileSlice } from '../workspace/files.js';

/** Diagnostics of a file or the project, and where they came from (`source`, never silent). */
export interface DiagnosticsReport {
  /** The file asked about, or null for the whole project. */
  readonly path: string | null;
  readonly diagnostics: readonly FileDiagnostic[];
  /** Diagnostics found (more than returned when `truncated`). */
  readonly total: number;
  readonly truncated: boolean;
  /**
   * Where they came from or why there are none: `lsp:<server>`, `typescript-api <version> (<config>)`,
   * or `none: <reason>`, with the reason a server was not used appended after `;`.
   */
  readonly source: string;
}

/** An answer from a server, or why there is none (the caller falls back to names and warns with it). */
export type Resolved = { readonly positions: SourcePosition[]; readonly server: string } | { readonly fallback: string };

/** A server's workspace/symbol answer, or why there is none. */
export type ResolvedSymbols = { readonly symbols: WorkspaceSymbolHit[]; readonly server: string } | { readonly fallback: string };

const TS_LANGUAGES = new Set(['typescript', 'tsx', 'javascript']);
const realTime: Scheduler = {
  now: () => performance.now(),
  schedule(delayMs, run) {
    const t = setTimeout(run, delayMs);
    t.unref?.();
    return () => clearTimeout(t);
  },
};

/** The engine's language-server layer (issue 21): the pool of servers and the TypeScript compiler fallback. */
export class LspLayer {
  readonly pool: LspPool;

  constructor(
    private readonly root: string,
    config: ResolvedConfig['lsp'],
    logger: Logger,
    scheduler: Scheduler = realTime,
  ) {
    this.pool = new LspPool({ root, config, scheduler, logger });
  }

  /** True when a server would answer for this language (enabled, installed, not failed); starts nothing. */
  available(language: string): boolean {
    return this.pool.available(language);
  }

  /**
   * Definitions, references or implementations at a position of a file scry read (`slice`, the
   * whole file). Never throws for a server problem: a timeout or crash becomes `fallback`.
   */
  async resolve(kind: 'definition' | 'references' | 'implementation', slice: FileSlice, line: number, column: number): Promise<Resolved> {
    return this.withServer(slice, async (client, server) => ({
      positions: await locationsAt(client, kind, { root: this.root, path: slice.path, languageId: languageIdOf(slice.language), text: slice.text, line, column }),
      server,
    }));
  }

  /**
   * workspace/symbol of the server for `slice`'s language (the file is opened first: tsserver
   * searches the projects of open files). Never throws for a server problem.
   */
  async workspaceSymbols(slice: FileSlice, query: string): Promise<ResolvedSymbols> {
    return this.withServer(slice, async (client, server) => ({
      symbols: await workspaceSymbols(client, { root: this.root, path: slice.path, languageId: languageIdOf(slice.language), text: slice.text }, query),
      server,
    }));
  }

  /** Runs a query on the server for a whole file scry read; a missing, slow or crashed server becomes `fallback`. */
  private async withServer<T extends object>(slice: FileSlice, query: (client: LspClient, server: string) => Promise<T>): Promise<T | { fallback: string }> {
    if (!this.pool.specFor(slice.language)) return { fallback: this.pool.enabled ? `no language server for ${slice.language}` : 'lsp.enabled is false' };
    if (slice.truncated || slice.startLine !== 1) return { fallback: `${slice.path} is too large to send to a language server` };
    try {
      const { client, spec } = await this.pool.client(slice.language);
      return await query(client, spec.name);
    } catch (err) {
      if (!isEngineError(err)) throw err;
      return { fallback: err.message };
    }
  }

  /**
   * Diagnostics of one file (from its language's server when enabled and running; else, for
   * TS/JS, the TypeScript compiler API) or of the whole project (the compiler API over tsconfig.json).
   */
  async diagnostics(slice: FileSlice | undefined, limit: number): Promise<DiagnosticsReport> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new EngineError('INVALID_ARGUMENT', { name: 'limit', reason: 'must be an integer from 1 to 1000' });
    let why: string | undefined;
    if (slice && this.pool.specFor(slice.language)) {
      const fromServer = await this.serverDiagnostics(slice, limit);
      if ('report' in fromServer) return fromServer.report;
      why = fromServer.fallback;
    } else if (slice) {
      why = this.pool.enabled ? `no language server for ${slice.language}` : 'lsp.enabled is false';
    }
    const suffix = why ? `; ${why}` : '';
    if (slice && !TS_LANGUAGES.has(slice.language)) return empty(slice.path, `none: the TypeScript compiler API checks only TS/JS, this file is ${slice.language}${suffix}`);
    const loaded = loadTypeScript(this.root);
    if (!loaded) return empty(slice?.path ?? null, `none: the typescript package is not installed (npm install --save-dev typescript)${suffix}`);
    const r = typeScriptDiagnostics(loaded.ts, this.root, slice?.path, limit);
    const source = `typescript-api ${loaded.ts.version} (${r.config})${suffix}`;
    if (!slice && r.config === 'defaults') return empty(null, `none: no tsconfig.json in the root names the project's files (give a path)${suffix}`);
    return { path: slice?.path ?? null, diagnostics: r.diagnostics, total: r.total, truncated: r.total > r.diagnostics.length, source };
  }

  private async serverDiagnostics(slice: FileSlice, limit: number): Promise<{ report: DiagnosticsReport } | { fallback: string }> {
    if (slice.truncated) return { fallback: `${slice.path} is too large to send to a language server` };
    try {
      const { client, spec } = await this.pool.client(slice.language);
      const uri = uriOf(this.root, slice.path);
      client.sync(uri, languageIdOf(slice.language), slice.text);
      const got = await client.diagnostics(uri);
      if (got === undefined) return { fallback: `the ${spec.name} server published no diagnostics within lsp.timeoutMs` };
      const all = got.map((d) => fromLspDiagnostic(slice.path, d));
      return { report: { path: slice.path, diagnostics: all.slice(0, limit), total: all.length, truncated: all.length > limit, source: `lsp:${spec.name}` } };
    } catch (err) {
      if (!isEngineError(err)) throw err;
      return { fallback: err.message };
    }
  }

  status(): LanguageServerStatus[] {
    return this.pool.status();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function empty(path: string | null, source: string): DiagnosticsReport {
  return { path, diagnostics: [], total: 0, truncated: false, source };
}
