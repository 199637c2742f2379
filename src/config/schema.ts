import { z } from 'zod';

/** Chunking knobs for the line-window and markdown chunkers. */
export const chunkSchema = z
  .object({
    /** Lines per window chunk. Range 10–400; default 60 (≈ 200–800 tokens of code). */
    windowLines: z.number().int().min(10).max(400).default(60),
    /** Lines shared by consecutive windows. Range 0–windowLines/2; default 8. */
    overlapLines: z.number().int().min(0).max(200).default(8),
    /** Hard byte clamp per chunk; long lines are cut at this size. Range 512–65536; default 4096. */
    maxBytes: z.number().int().min(512).max(65536).default(4096),
  })
  .strict()
  .refine((c) => c.overlapLines * 2 <= c.windowLines, { message: 'overlapLines must be at most half of windowLines', path: ['overlapLines'] });

/** BM25 column weights: how much a hit in each FTS field counts. All ≥ 0. */
export const weightsSchema = z
  .object({
    /** File stem (basename without extension). Default 6. */
    stem: z.number().min(0).max(100).default(6),
    /** Directory and file path words. Default 2. */
    path: z.number().min(0).max(100).default(2),
    /** Symbol or heading name of the chunk. Default 5. */
    symbol: z.number().min(0).max(100).default(5),
    /** Declaration head of the chunk's symbol: parameter and type names. Default 2. */
    signature: z.number().min(0).max(100).default(2),
    /** The chunk text, identifiers kept whole. Default 1. */
    body: z.number().min(0).max(100).default(1),
    /** Sub-words of compound identifiers (camelCase, snake_case...). Default 0.6. */
    parts: z.number().min(0).max(100).default(0.6),
  })
  .strict();

export const configSchema = z
  .object({
    /** Where the index database lives. Default: the user cache dir, keyed by the project's real path. */
    db: z.string().min(1).optional(),
    /** Files larger than this are skipped (`too_large`). Default 1 MB. */
    maxFileBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1_000_000),
    /** Extra gitignore-style patterns to exclude, applied after .gitignore and .scryignore. */
    ignore: z.array(z.string()).default([]),
    /** Changes to the built-in denylist: `add` patterns, or `remove` built-in ones by their exact text. */
    denylist: z
      .object({ add: z.array(z.string()).default([]), remove: z.array(z.string()).default([]) })
      .strict()
      .default({ add: [], remove: [] }),
    /**
     * Parse code with tree-sitter (definitions, symbols, imports). Default true; false chunks all
     * code by line windows — faster to index, but with no symbols, outline or structure-aware chunks.
     */
    syntax: z.boolean().default(true),
    chunk: chunkSchema.default({ windowLines: 60, overlapLines: 8, maxBytes: 4096 }),
    search: z
      .object({
        /** Default number of results. Range 1–1000; default 10. */
        limit: z.number().int().min(1).max(1000).default(10),
        weights: weightsSchema.default({ stem: 6, path: 2, symbol: 5, signature: 2, body: 1, parts: 0.6 }),
      })
      .strict()
      .default({ limit: 10, weights: { stem: 6, path: 2, symbol: 5, signature: 2, body: 1, parts: 0.6 } }),
    /** How long a writer waits for another process's index lock before INDEX_LOCKED. Default 30 s. */
    lockTimeoutMs: z.number().int().min(0).max(3_600_000).default(30_000),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type ConfigOutput = z.output<typeof configSchema>;
export type ChunkConfig = z.output<typeof chunkSchema>;
export type FieldWeights = z.output<typeof weightsSchema>;
