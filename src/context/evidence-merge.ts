/**
 * Evidence for a context pack (seed 004 §8.4): retrieved pieces arrive ranked best-first and leave
 * deduplicated, with adjacent or overlapping chunks of one file merged into one span, capped per
 * file, in the order a budget should give them up (the last piece is dropped first).
 */

/** What a piece of evidence is: a retrieved chunk, a symbol signature (no body), or a summary. */
export type EvidenceKind = 'chunk' | 'signature' | 'summary';

/** One retrieved piece, as a caller passes it; the list is ranked best-first. */
export interface EvidenceInput {
  readonly path: string;
  /** 1-based, inclusive. */
  readonly startLine: number;
  /** 1-based, inclusive. */
  readonly endLine: number;
  /** The lines `startLine..endLine` of the file (a trailing newline is allowed). */
  readonly text: string;
  /** Content hash of the piece, cited next to its span and used to drop duplicates. */
  readonly hash?: string | undefined;
  readonly score?: number | undefined;
  readonly symbol?: string | undefined;
  /** Default `chunk`. */
  readonly kind?: EvidenceKind | undefined;
  /** Why it was retrieved (`failing test test_add`, `imported by src/a.ts`), shown with the piece. */
  readonly why?: string | undefined;
  /**
   * Never dropped (the failing test and the functions of a failure's frames, seed 002 "Pass 3"):
   * packed before every other piece; a pack whose pinned pieces do not fit is TOO_LARGE.
   */
  readonly pinned?: boolean | undefined;
}

/** A piece after merging: one span of one file, cited as `path:startLine-endLine` plus its hashes. */
export interface EvidencePiece {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
  readonly kind: EvidenceKind;
  /** 0-based position of the best input piece it holds (lower is better). */
  readonly rank: number;
  /** Content hashes of the input pieces it holds, best first (empty when none were given). */
  readonly hashes: readonly string[];
  /** Symbols of the input pieces it holds, best first, without repeats. */
  readonly symbols: readonly string[];
  /** Best score among its input pieces, when any had one. */
  readonly score?: number | undefined;
  /** How many input pieces were merged into it (1 when none were). */
  readonly merged: number;
  /** The `why` of its input pieces, best first, without repeats (absent when none had one). */
  readonly whys?: readonly string[] | undefined;
  /** Present when an input piece of it was pinned: never dropped. */
  readonly pinned?: true | undefined;
}

/** Why an input piece never reached the budget. */
export type EvidenceDropReason = 'duplicate';

export interface DroppedEvidence {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly rank: number;
  readonly reason: EvidenceDropReason;
}

export interface MergedEvidence {
  /**
   * Priority order, the order a budget keeps them in: signatures and chunks within their file's
   * cap by rank, then the chunks and signatures over it by rank, then summaries by rank (only if
   * budget remains, §8.4).
   */
  readonly pieces: readonly EvidencePiece[];
  /** The pieces of `pieces` that were over their file's cap: a budget reaches them only after every other file's. */
  readonly overCap: ReadonlySet<EvidencePiece>;
  readonly dropped: readonly DroppedEvidence[];
}

export interface MergeEvidenceOptions {
  /**
   * Chunks per file in the first round, best first (and as many signatures; summaries are not
   * capped). Default 2 (§8.4 "cap per file"). Chunks over the cap are not lost: they come after
   * every file's first round, so they fill what a budget has left.
   */
  readonly maxPiecesPerFile?: number;
}

export const DEFAULT_MAX_PIECES_PER_FILE = 2;

/** Splits text into lines; a final line break ends the last line rather than starting a new one. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

interface Ranked {
  readonly input: EvidenceInput;
  readonly rank: number;
}

/** A chunk can be merged only when its text has exactly the lines its span claims. */
function mergeable(r: Ranked): boolean {
  const { input } = r;
  return (input.kind ?? 'chunk') === 'chunk' && splitLines(input.text).length === input.endLine - input.startLine + 1;
}

function single(r: Ranked): EvidencePiece {
  const { input } = r;
  return {
    path: input.path,
    startLine: input.startLine,
    endLine: input.endLine,
    text: input.text,
    kind: input.kind ?? 'chunk',
    rank: r.rank,
    hashes: input.hash !== undefined ? [input.hash] : [],
    symbols: input.symbol !== undefined ? [input.symbol] : [],
    score: input.score,
    merged: 1,
    ...(input.why !== undefined ? { whys: [input.why] } : {}),
    ...(input.pinned === true ? { pinned: true as const } : {}),
  };
}

/** Joins a run of overlapping or adjacent chunks of one file: the union of their lines, each line once. */
function join(run: readonly Ranked[]): EvidencePiece {
  if (run.length === 1) return single(run[0]!);
  const byRank = [...run].sort((a, b) => a.rank - b.rank);
  const start = Math.min(...run.map((r) => r.input.startLine));
  const end = Math.max(...run.map((r) => r.input.endLine));
  const lines = new Array<string | undefined>(end - start + 1);
  for (const r of byRank) {
    splitLines(r.input.text).forEach((line, i) => {
      lines[r.input.startLine - start + i] ??= line;
    });
  }
  const scores = run.map((r) => r.input.score).filter((s): s is number => s !== undefined);
  const whys = [...new Set(byRank.flatMap((r) => (r.input.why !== undefined ? [r.input.why] : [])))];
  return {
    path: run[0]!.input.path,
    startLine: start,
    endLine: end,
    text: lines.join('\n'),
    kind: 'chunk',
    rank: byRank[0]!.rank,
    hashes: byRank.flatMap((r) => (r.input.hash !== undefined ? [r.input.hash] : [])),
    symbols: [...new Set(byRank.flatMap((r) => (r.input.symbol !== undefined ? [r.input.symbol] : [])))],
    score: scores.length > 0 ? Math.max(...scores) : undefined,
    merged: run.length,
    ...(whys.length > 0 ? { whys } : {}),
    ...(run.some((r) => r.input.pinned === true) ? { pinned: true as const } : {}),
  };
}

/** Merges the mergeable chunks of one file into runs of overlapping or adjacent spans. */
function mergeFile(chunks: readonly Ranked[]): EvidencePiece[] {
  const sorted = [...chunks].sort((a, b) => a.input.startLine - b.input.startLine || a.rank - b.rank);
  const pieces: EvidencePiece[] = [];
  let run: Ranked[] = [];
  let runEnd = -Infinity;
  for (const r of sorted) {
    if (run.length > 0 && r.input.startLine > runEnd + 1) {
      pieces.push(join(run));
      run = [];
    }
    run.push(r);
    runEnd = Math.max(runEnd, r.input.endLine);
  }
  if (run.length > 0) pieces.push(join(run));
  return pieces;
}

function priority(a: EvidencePiece, b: EvidencePiece): number {
  return Number(b.pinned === true) - Number(a.pinned === true) || Number(a.kind === 'summary') - Number(b.kind === 'summary') || a.rank - b.rank;
}

/** The union of two pieces' whys and pins, for a piece that absorbs another. */
function absorbInto(host: EvidencePiece, p: EvidencePiece): EvidencePiece {
  const whys = [...new Set([...(host.whys ?? []), ...(p.whys ?? [])])];
  return {
    ...host,
    rank: Math.min(host.rank, p.rank),
    symbols: [...new Set([...host.symbols, ...p.symbols])],
    ...(whys.length > 0 ? { whys } : {}),
    ...(host.pinned === true || p.pinned === true ? { pinned: true as const } : {}),
  };
}

/**
 * A signature whose line lies inside a chunk of the same file is already shown by that chunk: it is
 * dropped as a duplicate, and the chunk takes the signature's rank when that is better (the query
 * named the symbol, and its whole definition was retrieved).
 */
function absorbSignatures(pieces: EvidencePiece[], dropped: DroppedEvidence[]): EvidencePiece[] {
  const chunks = pieces.filter((p) => p.kind === 'chunk');
  const out: EvidencePiece[] = [];
  const promoted = new Map<EvidencePiece, EvidencePiece>();
  for (const p of pieces) {
    const host = p.kind === 'signature' ? chunks.find((c) => c.path === p.path && c.startLine <= p.startLine && p.endLine <= c.endLine) : undefined;
    if (host === undefined) {
      out.push(p);
      continue;
    }
    dropped.push({ ...span(p), rank: p.rank, reason: 'duplicate' });
    const now = promoted.get(host) ?? host;
    promoted.set(host, absorbInto(now, p));
  }
  return out.map((p) => promoted.get(p) ?? p);
}

/**
 * Dedupes (same content hash, or same text when no hash is given; the better-ranked piece stays),
 * merges overlapping or adjacent chunks of the same file, puts at most `maxPiecesPerFile` chunks
 * per file in the first round (and as many signatures: a file's signatures never crowd out its
 * code) and the rest after every file's first round, then folds each signature into a first-round
 * chunk that contains it. Signatures and summaries are never merged.
 */
export function mergeEvidence(evidence: readonly EvidenceInput[], options: MergeEvidenceOptions = {}): MergedEvidence {
  const cap = options.maxPiecesPerFile ?? DEFAULT_MAX_PIECES_PER_FILE;
  const dropped: DroppedEvidence[] = [];
  const seen = new Set<string>();
  const unique: Ranked[] = [];
  // pinned pieces first (stable), so that a duplicate of a pinned piece is the one dropped
  const ordered = evidence.map((input, rank) => ({ input, rank })).sort((a, b) => Number(b.input.pinned === true) - Number(a.input.pinned === true));
  for (const { input, rank } of ordered) {
    const key = input.hash !== undefined ? `h\0${input.hash}` : `t\0${input.text}`;
    if (seen.has(key)) dropped.push({ ...span(input), rank, reason: 'duplicate' });
    else {
      seen.add(key);
      unique.push({ input, rank });
    }
  }
  const chunksByFile = new Map<string, Ranked[]>();
  const pieces: EvidencePiece[] = [];
  for (const r of unique) {
    if (!mergeable(r)) pieces.push(single(r));
    else {
      // pinned chunks merge only with each other: a pin must not grow by its neighbours
      const key = `${r.input.pinned === true ? 'p' : 'u'}\0${r.input.path}`;
      chunksByFile.set(key, [...(chunksByFile.get(key) ?? []), r]);
    }
  }
  for (const chunks of chunksByFile.values()) pieces.push(...mergeFile(chunks));
  dropInsidePins(pieces, dropped);
  pieces.sort(priority);
  const perFile = new Map<string, number>();
  let first: EvidencePiece[] = [];
  const over: EvidencePiece[] = [];
  for (const p of pieces) {
    const key = `${p.kind}\0${p.path}`;
    const n = perFile.get(key) ?? 0;
    perFile.set(key, n + 1);
    if (n < cap || p.kind === 'summary' || p.pinned === true) first.push(p);
    else over.push(p);
  }
  first = absorbSignatures(first, dropped).sort(priority);
  const summaries = first.filter((p) => p.kind === 'summary');
  dropped.sort((a, b) => a.rank - b.rank);
  return { pieces: [...first.filter((p) => p.kind !== 'summary'), ...over, ...summaries], overCap: new Set(over), dropped };
}

/** An unpinned chunk whose lines a pinned chunk of its file already shows is a duplicate. */
function dropInsidePins(pieces: EvidencePiece[], dropped: DroppedEvidence[]): void {
  const pins = pieces.filter((p) => p.pinned === true && p.kind === 'chunk');
  if (pins.length === 0) return;
  for (let i = pieces.length - 1; i >= 0; i--) {
    const p = pieces[i]!;
    if (p.pinned === true || p.kind !== 'chunk') continue;
    if (pins.some((q) => q.path === p.path && q.startLine <= p.startLine && p.endLine <= q.endLine)) {
      dropped.push({ ...span(p), rank: p.rank, reason: 'duplicate' });
      pieces.splice(i, 1);
    }
  }
}

function span(p: { path: string; startLine: number; endLine: number }): { path: string; startLine: number; endLine: number } {
  return { path: p.path, startLine: p.startLine, endLine: p.endLine };
}

/** `path:start-end`, the citation of a piece; a folder's (`src/db/`) or the repository's (`./`) is its path. */
export function citation(p: { path: string; startLine: number; endLine: number }): string {
  return p.path.endsWith('/') ? p.path : `${p.path}:${p.startLine}-${p.endLine}`;
}

/** Pieces of one file, as they are shown. */
export interface EvidenceGroup {
  readonly path: string;
  readonly pieces: readonly EvidencePiece[];
}

const KIND_ORDER: Record<EvidenceKind, number> = { signature: 0, chunk: 1, summary: 2 };

/**
 * Display order: files in the order of their best piece; within a file signatures, then chunks,
 * then summaries, each in line order.
 */
export function groupEvidence(pieces: readonly EvidencePiece[]): EvidenceGroup[] {
  const groups = new Map<string, EvidencePiece[]>();
  for (const p of [...pieces].sort((a, b) => a.rank - b.rank)) groups.set(p.path, [...(groups.get(p.path) ?? []), p]);
  return [...groups].map(([path, list]) => ({
    path,
    pieces: list.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.startLine - b.startLine || a.rank - b.rank),
  }));
}
