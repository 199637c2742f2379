import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type * as Rpc from 'vscode-languageserver-protocol/node';
import type {
  Diagnostic, InitializeParams, InitializeResult, ProtocolConnection, PublishDiagnosticsParams, ServerCapabilities,
} from 'vscode-languageserver-protocol/node';
import { EngineError } from '../core/errors.js';
import type { Logger, Scheduler } from '../core/logger.js';
import { LSP } from './lsp-methods.js';

/** How to start one server: every field comes from the config or the built-in table. */
export interface LaunchSpec {
  /** The family (`typescript`, `python`...), for messages. */
  readonly name: string;
  /** Absolute path of the executable (located before the start): the server, or Node running it (`launchOf`). */
  readonly executable: string;
  readonly args: readonly string[];
  readonly root: string;
  readonly maxMemoryMb: number;
}

/**
 * A document's key: its decoded path, so that `file:///a+b` and a server's `file:///a%2Bb` (or
 * `%3A` for `:`) name the same document; other schemes as they are.
 */
function docKey(uri: string): string {
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/** Diagnostics a server published for one document, with the version of our text they answer. */
interface Published {
  readonly diagnostics: Diagnostic[];
  readonly generation: number;
}

/**
 * One running language server over stdio (JSON-RPC framing by vscode-languageserver-protocol).
 * Its own process group, so `close` kills whatever it spawned (tsserver, node workers).
 */
export class LspClient {
  private child: ChildProcess | undefined;
  /** The JSON-RPC runtime, imported by `start` (it loads vscode-jsonrpc, node:net, streams): never when no server runs. */
  private rpc: typeof Rpc | undefined;
  private connection: ProtocolConnection | undefined;
  private readonly open = new Map<string, { version: number; text: string; generation: number }>();
  private readonly published = new Map<string, Published>();
  private readonly waiters = new Map<string, Array<() => void>>();
  private exited: string | undefined;
  /** The server process's pid while it runs (memory reports). */
  pid: number | undefined;

  constructor(
    private readonly spec: LaunchSpec,
    private readonly scheduler: Scheduler,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** Starts the server and runs the initialize handshake, within the timeout. */
  async start(): Promise<void> {
    const { executable, args, root } = this.spec;
    const { spawn } = await import('node:child_process');
    const rpc = await import('vscode-languageserver-protocol/node');
    this.rpc = rpc;
    // no shell, no user text: the command line is the config's or the table's, the cwd the root
    const child = spawn(executable, [...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child = child;
    this.pid = child.pid;
    child.stderr?.on('data', (d: Buffer) => this.logger.debug('language server stderr', { server: this.spec.name, text: d.toString('utf8').slice(0, 500) }));
    child.on('error', (err) => this.markExited(err.message));
    child.on('exit', (code, signal) => this.markExited(`exited (${signal ?? `code ${code}`})`));
    // the server leads its own process group, so it would outlive this process: kill it on exit too
    process.once('exit', this.killGroup);
    const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(child.stdout!), new rpc.StreamMessageWriter(child.stdin!));
    this.connection = connection;
    connection.onNotification(LSP.publishDiagnostics, (p: PublishDiagnosticsParams) => this.onDiagnostics(p.uri, p.diagnostics));
    // servers ask for settings and capabilities; scry has none to give
    connection.onRequest('workspace/configuration', (p: { items?: unknown[] }) => (p.items ?? []).map(() => null));
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onError(([err]) => this.logger.debug('language server connection error', { server: this.spec.name, error: err.message }));
    connection.listen();
    const init = await this.request<InitializeResult>(LSP.initialize, this.initializeParams());
    this.capabilities = init.capabilities ?? {};
    this.notify(LSP.initialized, {});
  }

  private capabilities: ServerCapabilities = {};

  /** The family's name (`typescript`, `python`), for messages. */
  get name(): string {
    return this.spec.name;
  }

  /** Whether the server announced a provider (`implementationProvider`...) in its initialize answer. */
  supports(provider: 'implementationProvider' | 'workspaceSymbolProvider'): boolean {
    const p = this.capabilities[provider];
    return p !== undefined && p !== false;
  }

  get alive(): boolean {
    return this.exited === undefined && this.connection !== undefined;
  }

  /** Why the server stopped, once it has. */
  get exitReason(): string | undefined {
    return this.exited;
  }

  private initializeParams(): InitializeParams {
    const rootUri = new URL(`file://${this.spec.root.endsWith('/') ? this.spec.root : `${this.spec.root}/`}`).href;
    return {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'root' }],
      // the memory cap, for servers that take one (typescript-language-server passes it to tsserver)
      // and no automatic typings download (typescript-language-server would fetch @types from npm: scry contacts no network)
      initializationOptions: { maxTsServerMemory: this.spec.maxMemoryMb, disableAutomaticTypingAcquisition: true },
      capabilities: {
        textDocument: {
          synchronization: { didSave: false, dynamicRegistration: false },
          definition: { linkSupport: false },
          references: {},
          implementation: { linkSupport: false },
          publishDiagnostics: { relatedInformation: false, versionSupport: true },
        },
        workspace: { symbol: {}, configuration: true, workspaceFolders: true },
      },
    };
  }

  /** A request, rejected with LSP_TIMEOUT (and cancelled) after the timeout, LSP_FAILED if the server is gone. */
  async request<R>(method: string, params: unknown): Promise<R> {
    if (!this.connection || !this.rpc || this.exited !== undefined) throw new EngineError('LSP_FAILED', { server: this.spec.name, reason: this.exited ?? 'not started' });
    const cancel = new this.rpc.CancellationTokenSource();
    let clear = (): void => undefined;
    const timeout = new Promise<never>((_, reject) => {
      clear = this.scheduler.schedule(this.timeoutMs, () => {
        cancel.cancel();
        reject(new EngineError('LSP_TIMEOUT', { server: this.spec.name, method, ms: this.timeoutMs }));
      });
    });
    try {
      return await Promise.race([this.connection.sendRequest(method, params, cancel.token) as Promise<R>, timeout, this.exitPromise()]);
    } catch (err) {
      if (err instanceof EngineError) throw err;
      throw new EngineError('LSP_FAILED', { server: this.spec.name, reason: (err as Error).message }, { cause: err });
    } finally {
      clear();
      cancel.dispose();
    }
  }

  private exitWaiters: Array<(reason: string) => void> = [];

  private exitPromise(): Promise<never> {
    return new Promise<never>((_, reject) => {
      const fail = (reason: string): void => reject(new EngineError('LSP_FAILED', { server: this.spec.name, reason }));
      if (this.exited !== undefined) fail(this.exited);
      else this.exitWaiters.push(fail);
    });
  }

  private markExited(reason: string): void {
    if (this.exited !== undefined) return;
    this.exited = reason;
    for (const w of this.exitWaiters.splice(0)) w(reason);
    for (const ws of this.waiters.values()) for (const w of ws) w();
    this.waiters.clear();
  }

  /** Opens (or updates) a document with the text scry read from disk; true when the server was sent something. */
  sync(uri: string, languageId: string, text: string): boolean {
    if (!this.connection || this.exited !== undefined) return false;
    const known = this.open.get(docKey(uri));
    if (known && known.text === text) return false;
    if (!known) {
      this.open.set(docKey(uri), { version: 1, text, generation: 1 });
      this.notify(LSP.didOpen, { textDocument: { uri, languageId, version: 1, text } });
      return true;
    }
    const version = known.version + 1;
    this.open.set(docKey(uri), { version, text, generation: known.generation + 1 });
    this.notify(LSP.didChange, { textDocument: { uri, version }, contentChanges: [{ text }] });
    return true;
  }

  /**
   * `sync`, then, when the text was new to the server, waits (up to the timeout) for it to publish
   * the document's diagnostics: servers answer queries about a document they have not analysed
   * yet with nothing (tsserver while its project loads), and diagnostics are the one signal every
   * server sends when it has.
   */
  async ready(uri: string, languageId: string, text: string): Promise<void> {
    const key = docKey(uri);
    // a second query arriving meanwhile waits for the same analysis
    if (this.sync(uri, languageId, text)) this.analysing.set(key, this.diagnostics(uri).then(() => undefined));
    await this.analysing.get(key);
  }

  private readonly analysing = new Map<string, Promise<void>>();

  /** A notification; a server gone meanwhile is noticed by the next request. */
  private notify(method: string, params: unknown): void {
    this.connection?.sendNotification(method, params).catch(() => undefined);
  }

  /**
   * The diagnostics the server publishes for a document after its current text was sent, waiting
   * up to the timeout (servers publish asynchronously); undefined when none came in time.
   */
  async diagnostics(uri: string): Promise<Diagnostic[] | undefined> {
    const key = docKey(uri);
    const generation = this.open.get(key)?.generation ?? 0;
    const fresh = (): Diagnostic[] | undefined => {
      const p = this.published.get(key);
      return p && p.generation >= generation ? p.diagnostics : undefined;
    };
    if (fresh() || this.exited !== undefined) return fresh();
    await new Promise<void>((resolve) => {
      const cancel = this.scheduler.schedule(this.timeoutMs, resolve);
      const list = this.waiters.get(key) ?? [];
      list.push(() => {
        cancel();
        resolve();
      });
      this.waiters.set(key, list);
    });
    return fresh();
  }

  private onDiagnostics(uri: string, diagnostics: Diagnostic[]): void {
    const key = docKey(uri);
    this.published.set(key, { diagnostics, generation: this.open.get(key)?.generation ?? 0 });
    const list = this.waiters.get(key);
    this.waiters.delete(key);
    for (const w of list ?? []) w();
  }

  /** Polite shutdown (shutdown, exit) bounded by the timeout, then the whole process group is killed. */
  async close(): Promise<void> {
    const connection = this.connection;
    if (connection && this.exited === undefined) {
      try {
        await this.request(LSP.shutdown, undefined);
        this.notify(LSP.exit, undefined);
      } catch {
        // a server that does not answer is killed below
      }
    }
    this.killGroup();
    connection?.dispose();
    this.connection = undefined;
    this.markExited('shut down');
  }

  /** Kills the server's process group (its children too); no-op once gone. */
  readonly killGroup = (): void => {
    process.removeListener('exit', this.killGroup);
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    this.child = undefined;
  };
}
