import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LspConfig } from '../config/schema.js';
import { EngineError } from '../core/errors.js';
import type { Logger, Scheduler } from '../core/logger.js';
import { launchOf, locateExecutable, mayExecute } from './locate-server.js';
import { LspClient } from './lsp-client.js';
import { effectiveServers, type ServerSpec } from './server-table.js';

/** What `scry status` says about one language server. */
export interface LanguageServerStatus {
  /** The family (`typescript`, `python`...), also its config key. */
  readonly name: string;
  readonly languages: readonly string[];
  /** `missing` (not installed), `found` (installed, not running), `running`, `failed` (see `reason`). */
  readonly state: 'missing' | 'found' | 'running' | 'failed';
  /** The executable found, or the names looked for. */
  readonly command: string;
  readonly pid?: number | undefined;
  readonly reason?: string | undefined;
  /** How to install it (missing or failed). */
  readonly hint?: string | undefined;
}

export interface LspPoolOptions {
  readonly root: string;
  readonly config: Readonly<LspConfig> & { readonly searchPath: readonly string[] };
  readonly scheduler: Scheduler;
  readonly logger: Logger;
}

interface Running {
  readonly client: LspClient;
  readonly ready: Promise<LspClient>;
  cancelIdle: () => void;
}

/** scry's own package directory (src/lsp or dist/lsp → two up): its node_modules/.bin holds servers installed with scry. */
const SCRY_DIR = fileURLToPath(new URL('../../', import.meta.url));

/**
 * One server per language family per project, started on the first request for a file of its
 * language, shut down after `idleMs` without requests. A server that failed to start stays
 * failed (with its reason) until the engine is reopened; one that crashed later is restarted on demand.
 */
export class LspPool {
  private readonly servers: ServerSpec[];
  private readonly running = new Map<string, Running>();
  private readonly failed = new Map<string, string>();
  private closed = false;

  constructor(private readonly options: LspPoolOptions) {
    this.servers = effectiveServers(options.config.servers);
  }

  get enabled(): boolean {
    return this.options.config.enabled;
  }

  /** The family serving a language, when enabled and known. */
  specFor(language: string): ServerSpec | undefined {
    return this.enabled ? this.servers.find((s) => s.languages.includes(language)) : undefined;
  }

  private searchDirs(): string[] {
    return [join(this.options.root, 'node_modules', '.bin'), join(SCRY_DIR, 'node_modules', '.bin'), ...this.options.config.searchPath];
  }

  private locate(spec: ServerSpec): string | undefined {
    const dirs = this.searchDirs();
    for (const c of spec.commands) {
      const found = locateExecutable(c, dirs);
      if (found && mayExecute(found, this.options.root)) return found;
    }
    return undefined;
  }

  /** True when a server for this language is installed and has not failed (no process is started). */
  available(language: string): boolean {
    const spec = this.specFor(language);
    return spec !== undefined && !this.failed.has(spec.name) && (this.running.has(spec.name) || this.locate(spec) !== undefined);
  }

  /**
   * The running client for a language, started on demand. Throws LSP_FAILED (not installed, failed
   * to start) or LSP_TIMEOUT (initialize took longer than the timeout, the process is killed).
   */
  async client(language: string): Promise<{ client: LspClient; spec: ServerSpec }> {
    if (this.closed) throw new EngineError('CLOSED');
    const spec = this.specFor(language);
    if (!spec) throw new EngineError('LSP_FAILED', { server: language, reason: this.enabled ? 'no language server for this language' : 'lsp.enabled is false' });
    const prior = this.failed.get(spec.name);
    if (prior !== undefined) throw new EngineError('LSP_FAILED', { server: spec.name, reason: prior }, { hint: spec.install });
    let run = this.running.get(spec.name);
    if (run && !run.client.alive && run.client.exitReason !== undefined) {
      this.running.delete(spec.name); // crashed after it ran: start a new one
      run.cancelIdle();
      run = undefined;
    }
    run ??= this.start(spec);
    const client = await run.ready;
    this.touch(spec.name, run);
    return { client, spec };
  }

  private start(spec: ServerSpec): Running {
    const executable = this.locate(spec);
    const { root, config, scheduler, logger } = this.options;
    if (!executable) {
      const reason = `${spec.commands.join(' or ')} not found in node_modules/.bin or on PATH (a file of the project itself is never run)`;
      this.failed.set(spec.name, reason);
      throw new EngineError('LSP_FAILED', { server: spec.name, reason }, { hint: spec.install });
    }
    const launch = launchOf(executable, spec.args, config.maxMemoryMb, process.execPath);
    const client = new LspClient({ name: spec.name, executable: launch.command, args: launch.args, root, maxMemoryMb: config.maxMemoryMb }, scheduler, config.timeoutMs, logger);
    const ready = client.start().then(
      () => client,
      (err: unknown) => {
        client.killGroup();
        this.running.delete(spec.name);
        this.failed.set(spec.name, (err as Error).message);
        throw err;
      },
    );
    const run: Running = { client, ready, cancelIdle: () => undefined };
    this.running.set(spec.name, run);
    logger.info('language server starting', { server: spec.name, executable, memoryCap: launch.memoryCap });
    return run;
  }

  /** Restarts the idle countdown of a server that just answered. */
  private touch(name: string, run: Running): void {
    run.cancelIdle();
    run.cancelIdle = this.options.scheduler.schedule(this.options.config.idleMs, () => {
      if (this.running.get(name) !== run) return;
      this.running.delete(name);
      void run.client.close();
    });
  }

  /** Records a server as failed after a timeout or crash mid-request, and stops it: later calls fall back to names at once. */
  markFailed(name: string, reason: string): void {
    const run = this.running.get(name);
    this.running.delete(name);
    this.failed.set(name, reason);
    if (run) {
      run.cancelIdle();
      void run.client.close();
    }
  }

  status(): LanguageServerStatus[] {
    return this.servers.map((spec) => {
      const base = { name: spec.name, languages: spec.languages };
      const failed = this.failed.get(spec.name);
      if (failed !== undefined) return { ...base, state: 'failed', command: spec.commands.join(' | '), reason: failed, hint: spec.install };
      const run = this.running.get(spec.name);
      if (run?.client.alive) return { ...base, state: 'running', command: spec.commands.join(' | '), pid: run.client.pid };
      const found = this.locate(spec);
      return found ? { ...base, state: 'found', command: found } : { ...base, state: 'missing', command: spec.commands.join(' | '), hint: spec.install };
    });
  }

  /** PIDs of the running servers, by family (memory reports). */
  pids(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, run] of this.running) if (run.client.pid !== undefined && run.client.alive) out[name] = run.client.pid;
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    const runs = [...this.running.values()];
    this.running.clear();
    await Promise.all(runs.map(async (r) => {
      r.cancelIdle();
      await r.client.close();
    }));
  }
}
