import { EngineError } from '../core/errors.js';
import type { OpenRevision, TeamStore } from '../team/team-store.js';
import type { AccessControl, Principal } from './access.js';
import { asChunks, asContents, asFiles, asManifest, parsePushBody, payloadBytes, type PushBody, type PushStep } from './push-payload.js';

/**
 * Bytes received per open revision, against serve.maxPushBytes. Owned by one server instance; an
 * entry goes when its revision is committed or aborted (a restarted server forgets it, and the
 * stale-revision sweep drops the revision itself).
 */
export class PushBudget {
  private readonly used = new Map<number, number>();
  constructor(private readonly limit: number) {}

  add(revisionId: number, bytes: number): void {
    const total = (this.used.get(revisionId) ?? 0) + bytes;
    if (total > this.limit) {
      this.used.delete(revisionId);
      throw new EngineError('TOO_LARGE', { what: 'the push', size: total, unit: 'bytes', limit: `${this.limit} bytes` }, { hint: 'the revision was dropped; raise serve.maxPushBytes on the server, or push a smaller tree' });
    }
    this.used.set(revisionId, total);
  }

  forget(revisionId: number): void {
    this.used.delete(revisionId);
  }
}

/** The server's caps, told to the client in the `begin` answer so that it sizes its requests under them. */
export interface PushLimits {
  readonly maxBodyBytes: number;
  readonly maxManifestBytes: number;
  readonly maxPushBytes: number;
}

export interface PushContext {
  readonly limits: PushLimits;
  readonly store: TeamStore;
  readonly access: AccessControl;
  readonly principal: Principal;
  readonly budget: PushBudget;
}

const open = (b: { repo: string; revision: number; base: number | null }): OpenRevision => ({ repo: b.repo, id: b.revision, base: b.base });

/**
 * One push step for one principal. The body is parsed whole first (PUSH_INVALID), the token must
 * hold `push` on its repository (ACCESS_DENIED), and only then is the store touched. A batch that
 * the store refuses as malformed, or that takes the push over its byte cap, drops the revision:
 * a push is accepted whole or not at all, and the previous revision stays the one served.
 */
export async function runPushStep(step: PushStep, raw: unknown, ctx: PushContext): Promise<unknown> {
  const body = parsePushBody(step, raw);
  ctx.access.check(ctx.principal, 'push', body.repo);
  const { store } = ctx;
  switch (step) {
    case 'begin': {
      await store.ensureRepo(body.repo);
      const rev = await store.beginRevision(body.repo);
      return { repo: rev.repo, revision: rev.id, base: rev.base, limits: ctx.limits };
    }
    case 'missing': {
      const b = body as PushBody<'missing'>;
      const known = (await store.listRepos()).some((r) => r.name === b.repo);
      // a repository never pushed lacks everything
      if (!known) return { chunks: b.chunks, contents: b.contents };
      return { chunks: await store.missingChunks(b.repo, b.chunks), contents: await store.missingContents(b.repo, b.contents) };
    }
    case 'commit': {
      const b = body as PushBody<'commit'>;
      try {
        const done = await store.commitRevision(open(b), asManifest(b));
        return { repo: done.repo, revision: done.id, files: done.files, chunks: done.chunks, previous: done.previous };
      } catch (err) {
        if (err instanceof EngineError && err.code === 'PUSH_INVALID') await drop(ctx, open(b));
        throw err;
      } finally {
        ctx.budget.forget(b.revision);
      }
    }
    case 'abort': {
      const b = body as PushBody<'abort'>;
      await drop(ctx, open(b));
      return { aborted: b.revision };
    }
    default:
      return storeBatch(step, body as PushBody<'chunks' | 'contents' | 'vectors' | 'files'>, ctx);
  }
}

async function storeBatch(step: PushStep, body: PushBody<'chunks' | 'contents' | 'vectors' | 'files'>, ctx: PushContext): Promise<unknown> {
  const rev = open(body);
  const bytes = payloadBytes(step, body);
  try {
    ctx.budget.add(rev.id, bytes);
    if (step === 'chunks') await ctx.store.putChunks(rev, asChunks(body as PushBody<'chunks'>));
    else if (step === 'contents') await ctx.store.putContents(rev, asContents(body as PushBody<'contents'>));
    else if (step === 'files') await ctx.store.putFiles(rev, asFiles(body as PushBody<'files'>));
    else {
      const b = body as PushBody<'vectors'>;
      await ctx.store.putVectors(rev, { model: b.model, vectors: b.vectors.map(([hash, v]) => [hash, new Uint8Array(Buffer.from(v, 'base64'))] as const) });
    }
  } catch (err) {
    if (err instanceof EngineError && (err.code === 'PUSH_INVALID' || err.code === 'TOO_LARGE')) await drop(ctx, rev);
    throw err;
  }
  const items = 'chunks' in body ? body.chunks.length : 'contents' in body ? body.contents.length : 'files' in body ? body.files.length : body.vectors.length;
  return { stored: items, bytes };
}

async function drop(ctx: PushContext, rev: OpenRevision): Promise<void> {
  ctx.budget.forget(rev.id);
  await ctx.store.abortRevision(rev).catch(() => undefined);
}
