/**
 * The client side of `scry push` (issue 23): a local SQLite index read as a push — the manifest of
 * every file and chunk, and on request the postings and bodies the server lacks. Postings come
 * from the FTS5 index itself (`PushRepo.instances`), so the server ranks the tokens scry's
 * tokenizer produced here.
 */
import type { ChunkKind } from '../core/chunk.js';
import type { ContentType } from '../core/file.js';
import { PushRepo, type PushChunkRow } from '../store/push-repo.js';
import { bodyHash, postingsHash } from './payload.js';
import { FTS_COLUMNS, type ChunkPayload, type ContentPayload, type ManifestFile, type PushSource, type VectorPayload } from './team-store.js';

type Posting = [term: string, column: number, positions: number[]];

/** Postings of every live chunk row, by chunk id, sorted by term then column. */
function readPostings(repo: PushRepo, live: ReadonlySet<number>): Map<number, { postings: Posting[]; length: number }> {
  const byDoc = new Map<number, Map<string, Posting>>();
  const column = new Map<string, number>(FTS_COLUMNS.map((c, i) => [c, i]));
  for (const inst of repo.instances()) {
    if (!live.has(inst.doc)) continue; // a deleted row not yet merged away
    let doc = byDoc.get(inst.doc);
    if (!doc) byDoc.set(inst.doc, (doc = new Map()));
    const col = column.get(inst.col);
    if (col === undefined) throw new Error(`unknown FTS column ${inst.col}`);
    const key = `${col}\0${inst.term}`;
    const p = doc.get(key);
    if (p) p[2].push(inst.offset);
    else doc.set(key, [inst.term, col, [inst.offset]]);
  }
  const out = new Map<number, { postings: Posting[]; length: number }>();
  for (const id of live) {
    const postings = [...(byDoc.get(id)?.values() ?? [])];
    // code-unit order, as the server's check compares
    postings.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    let length = 0;
    for (const p of postings) {
      p[2].sort((x, y) => x - y);
      length += p[2].length;
    }
    out.set(id, { postings, length });
  }
  return out;
}

/** NUL-free? Bodies are sent as JSON strings; a NUL is carried as is (the server escapes it). */
const decode = (buf: Buffer): string => buf.toString('utf8');

/**
 * Reads the index at `dbPath` as a push. Files come in the order of their first chunk id and
 * chunks in id order, so the server assigns ids in the same order as this index (ties in score
 * break the same way on both). The index stays open until `close()`.
 */
export function readPushSource(dbPath: string): PushSource & { close(): void } {
  const repo = PushRepo.open(dbPath);
  try {
    const files = repo.files();
    const chunks = repo.chunks();
    const postings = readPostings(repo, new Set(chunks.map((c) => c.id)));
    const byHash = new Map<string, ChunkPayload>();
    const chunkRows = new Map<number, PushChunkRow[]>();
    for (const c of chunks) {
      const list = chunkRows.get(c.fileId);
      if (list) list.push(c);
      else chunkRows.set(c.fileId, [c]);
    }
    const bodies = repo.bodies(files.map((f) => f.hash));
    const contents = new Map<string, ContentPayload>();
    const order = (id: number): number => chunkRows.get(id)?.[0]?.id ?? Number.MAX_SAFE_INTEGER;
    const manifestFiles: ManifestFile[] = [...files].sort((a, b) => order(a.id) - order(b.id) || a.id - b.id).flatMap((f) => {
      const buf = bodies.get(f.hash);
      if (!buf) return [];
      const body = decode(buf);
      const hash = bodyHash(body);
      contents.set(hash, { hash, body });
      return [{
        path: f.path,
        language: f.language,
        contentType: f.contentType as ContentType,
        content: hash,
        size: f.size,
        lineCount: f.lineCount,
        chunks: (chunkRows.get(f.id) ?? []).map((c) => {
          const p = postings.get(c.id)!;
          const ph = postingsHash(p.length, p.postings);
          if (!byHash.has(ph)) byHash.set(ph, { hash: ph, length: p.length, postings: p.postings });
          return {
            ordinal: c.ordinal, kind: c.kind as ChunkKind, startLine: c.startLine, endLine: c.endLine, startByte: c.startByte, endByte: c.endByte,
            hash: c.hash, postings: ph, symbol: c.symbol, container: c.container, signature: c.signature, tsMs: c.tsMs,
          };
        }),
      }];
    });
    const model = repo.vectorModel();
    return {
      manifest: { files: manifestFiles },
      chunks: (hashes) => hashes.flatMap((h) => byHash.get(h) ?? []),
      contents: (hashes) => hashes.flatMap((h) => contents.get(h) ?? []),
      vectors: (): VectorPayload | undefined => (model === undefined ? undefined : { model, vectors: repo.vectors(model) }),
      close: () => repo.close(),
    };
  } catch (err) {
    repo.close();
    throw err;
  }
}
