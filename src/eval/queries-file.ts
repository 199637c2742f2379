import * as z from 'zod';
import { EngineError } from '../index.js';
import type { GoldTarget } from './metrics.js';

/** One evaluation query: the question and the files (and optionally lines) that answer it. */
export interface EvalQuery {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly GoldTarget[];
  /**
   * Search the tree at this commit (a git worktree of the repository, indexed for the purpose)
   * instead of the current index. `scry eval --from-git --export` writes the parent commit here.
   */
  readonly commit?: string | undefined;
}

const targetSchema = z
  .object({
    path: z.string().min(1).max(4096),
    startLine: z.number().int().min(1).optional(),
    endLine: z.number().int().min(1).optional(),
  })
  .strict()
  .refine((t) => t.endLine === undefined || (t.startLine !== undefined && t.endLine >= t.startLine), { message: 'endLine needs a startLine at or before it' });

const lineSchema = z
  .object({
    id: z.string().min(1).max(200).optional(),
    query: z.string().min(1).max(50_000),
    expected: z.array(targetSchema).min(1).max(100),
    commit: z.string().regex(/^[0-9a-f]{7,64}$/, 'a commit id (hex)').optional(),
    /** Informational, written by --export: the commit the query was mined from. */
    sha: z.string().regex(/^[0-9a-f]{7,64}$/, 'a commit id (hex)').optional(),
    /** Informational: where the query text comes from (the pull request or issue thread it was mined from). */
    source: z.string().min(1).max(500).optional(),
  })
  .strict();

/** A root-relative POSIX path, or undefined when the path leaves the root. */
function normalisePath(path: string): string | undefined {
  const p = path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  if (p.startsWith('/') || /^[a-zA-Z]:/.test(p) || p.split('/').includes('..')) return undefined;
  return p;
}

/**
 * Parses a hand-written evaluation set, one JSON object per line:
 * `{"query": "...", "expected": [{"path": "src/a.ts", "startLine": 10, "endLine": 42}], "id"?: "...", "commit"?: "<sha>"}`.
 * Blank lines are skipped. Any invalid line fails the whole file with its line number: an
 * evaluation that silently drops queries would report numbers for a set nobody wrote.
 */
export function parseQueriesFile(text: string, source = 'queries'): EvalQuery[] {
  const out: EvalQuery[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    const where = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new EngineError('INVALID_ARGUMENT', { name: where, reason: `not JSON (${(err as Error).message})` });
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new EngineError('INVALID_ARGUMENT', { name: where, reason: `${issue.path.join('.') || 'line'}: ${issue.message}` });
    }
    const expected = parsed.data.expected.map((t) => {
      const path = normalisePath(t.path);
      if (path === undefined) throw new EngineError('INVALID_ARGUMENT', { name: where, reason: `expected path "${t.path}" must be relative to the root` });
      return { path, startLine: t.startLine, endLine: t.endLine ?? t.startLine };
    });
    out.push({ id: parsed.data.id ?? `q${out.length + 1}`, query: parsed.data.query, expected, ...(parsed.data.commit ? { commit: parsed.data.commit } : {}) });
  }
  if (out.length === 0) throw new EngineError('INVALID_ARGUMENT', { name: source, reason: 'no queries (one JSON object per line)' });
  return out;
}
