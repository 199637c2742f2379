import * as z from 'zod';

/** The `search` section's ranking schemas: BM25 field weights, the ranking steps (and per query kind), fusion. */

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
    /** Comments and docstrings of the chunk (taken out of `body`). Default 1: weighed as `body` was. */
    doc: z.number().min(0).max(100).default(1),
  })
  .strict();

/**
 * The per-file steps of one query kind (`search.ranking.byKind`, src/search/query-kind.ts): each
 * key set here replaces the `search.ranking` value of the same name for queries of that kind.
 */
export const kindRankingSchema = z
  .object({
    /** As `search.ranking.fileCap`, for this kind. */
    fileCap: z.number().int().min(0).max(100).optional(),
    /** As `search.ranking.fileCapWithin`, for this kind. */
    fileCapWithin: z.number().min(0).max(1).optional(),
    /** As `search.ranking.fileCapSpread`, for this kind. */
    fileCapSpread: z.number().int().min(0).max(100).optional(),
    /** As `search.ranking.fileDecay`, for this kind. */
    fileDecay: z.number().min(0.1).max(1).optional(),
    /** As `search.ranking.fileBlend`, for this kind. */
    fileBlend: z.number().min(0).max(1).optional(),
    /** As `search.ranking.fileScore`, for this kind. */
    fileScore: z.number().min(0).max(1).optional(),
    /** As `search.ranking.mentionBoost`, for this kind. */
    mentionBoost: z.number().min(0).max(5).optional(),
    /** As `search.ranking.learned`, for this kind (the learned ranker keeps its own per-file diversity). */
    learned: z.boolean().optional(),
    /** As `search.ranking.fileRanker`, for this kind. */
    fileRanker: z.boolean().optional(),
    /** As `search.ranking.companionBoost`, for this kind. */
    companionBoost: z.number().min(0).max(2).optional(),
    /** As `search.ranking.companionAnchors`, for this kind. */
    companionAnchors: z.number().int().min(1).max(10).optional(),
  })
  .strict();

/**
 * The words of a long query (issue 18, longterms; docs/DESIGN.md "Query processing"): how they
 * are weighed and which are searched for. The defaults are the weighing before it was tunable.
 */
export const longTermsSchema = z
  .object({
    /** Added to the weight of a word in the title (first line). Range 0–3; default 1. */
    title: z.number().int().min(0).max(3).default(1),
    /** Added to the weight of a word written as code (backticks, identifiers, frames). Range 0–3; default 1. */
    code: z.number().int().min(0).max(3).default(1),
    /** Added to the weight of a word the text repeats (twice or more). Range 0–2; default 0. */
    repeated: z.number().int().min(0).max(2).default(0),
    /** The user's code blocks: a word only they hold counts as code when the project defines it, and is left out when not (a local name). Local indexes only. Default false. */
    fences: z.boolean().default(false),
    /** A word written as code counts as code only when the project defines a symbol of that name (local indexes only). Default false. */
    codeDefined: z.boolean().default(false),
    /** Leave out the words of the pull-request and issue process ("Fixes", "PR", "reported") unless written as code. Default false. */
    metaWords: z.boolean().default(false),
    /**
     * Stack-trace frames: a frame whose file the index does not hold and whose path is a library's or
     * the runtime's (site-packages, node_modules, lib/python3.x, <frozen ...>) is left out, with the
     * source line under it. Default false. Local indexes only (the team store keeps every frame).
     */
    frames: z.boolean().default(false),
    /** File scoring (`fileScore`) weighs each group as the chunk expression does; false counts every group once. Default true. */
    fileWeights: z.boolean().default(true),
    /** Most term groups searched for. Range 1–100; default 40. */
    maxGroups: z.number().int().min(1).max(100).default(40),
    /** A group in more than this share of chunks is left out when rarer ones exist. Range 0.001–1; default 0.2. */
    maxDfRatio: z.number().min(0.001).max(1).default(0.2),
    /** A kept group in at most this share of chunks gains 1 in weight (a rare word of the text). Range 0–0.1; 0 (default) is off. */
    rareRatio: z.number().min(0).max(0.1).default(0),
    /** Term selection ranks groups by idf × (1 + ln count) × their title/code weight (not only idf × count). Default false. */
    selectByWeight: z.boolean().default(false),
  })
  .strict();

/**
 * Ranking techniques beyond BM25, each switchable for ablation (`scry eval` compares them). The
 * defaults are the configuration tuned on the development benchmark (docs/DESIGN.md "Ranking").
 */
export const rankingSchema = z
  .object({
    /** Long queries: title words and words written as code count up to 3× the prose. Default true. */
    queryWeights: z.boolean().default(true),
    /** The words of long queries: weights, meta words, stack-trace frames, term selection (longTermsSchema). */
    longTerms: longTermsSchema.default({ title: 1, code: 1, repeated: 0, fences: false, codeDefined: false, metaWords: false, frames: false, fileWeights: true, maxGroups: 40, maxDfRatio: 0.2, rareRatio: 0, selectByWeight: false }),
    /** Short queries: a hyphenated compound (`many-to-one`) is also searched as one identifier (`manytoone`, how `ManyToOne` is stored). Default true. */
    hyphenJoined: z.boolean().default(true),
    /** Score multiplier for a chunk defining a symbol the query names. Range 1–5; 1 is off. */
    definitionBoost: z.number().min(1).max(5).default(1.25),
    /** Share of a test chunk's score passed to the source file it tests. Range 0–1; 0 is off. */
    testToSource: z.number().min(0).max(1).default(0.5),
    /** Multiplier of docs, config and text in queries not about them. Range 0.1–1; 1 is off. */
    nonCode: z.number().min(0.1).max(1).default(0.5),
    /** Multiplier of code chunks that define nothing (top-level statements, line windows). Range 0.1–1; 1 is off. */
    nonDefinition: z.number().min(0.1).max(1).default(1),
    /** Each chunk gains this share of the two best other chunks of its file. Range 0–1; 0 is off. */
    fileSupport: z.number().min(0).max(1).default(0.2),
    /** Most chunks of one file among the results (later ones move below other files). 0 is off. */
    fileCap: z.number().int().min(0).max(100).default(0),
    /** With fileCap: a file's later chunk stays in place only if it scores at least this share of the file's best. Range 0–1; 0 is off. */
    fileCapWithin: z.number().min(0).max(1).default(0),
    /**
     * With fileCap: a chunk the cap moves down goes below the best chunks of the next
     * `fileCapSpread` files only (so a file's second function stays near its first), instead of below
     * every other file's chunks. Range 0–100; 0 (default) is below all.
     */
    fileCapSpread: z.number().int().min(0).max(100).default(0),
    /** A file's n-th chunk counts × fileDecay^(n − 1) (a soft per-file cap). Range 0.1–1; 1 is off; default 0.95. */
    fileDecay: z.number().min(0.1).max(1).default(0.95),
    /** Each chunk's score × ((1 − fileBlend) + fileBlend × its file's score / the best file's). Range 0–1; 0 is off. */
    fileBlend: z.number().min(0).max(1).default(0),
    /**
     * File scoring (issue 18): each chunk's score × ((1 − fileScore) + fileScore × its file's
     * BM25 with whole files as documents / the best file's), so a file matching many of a long
     * text's terms across its chunks rises. One index walk per query term. Range 0–1; 0 is off.
     */
    fileScore: z.number().min(0).max(1).default(0),
    /**
     * Mentions (issue 18): a file defining a name the query writes as code (`DataStats`,
     * `get_running_exps`; defined in at most 3 files) counts × (1 + mentionBoost × strength),
     * strength = Σ 1 / (files defining the name), at most 1; such a file's defining chunk joins the
     * candidates. Range 0–5; 0 is off.
     */
    mentionBoost: z.number().min(0).max(5).default(0),
    /**
     * The learned file ranker (issue 18; models/ranker/file-weights.json): when the file evidence
     * of a long text ran (`fileScore` or `mentionBoost`, 20+ terms), the files of its pool of 100
     * chunks are ordered by a linear model over file features (the file as a document, coverage,
     * mentions, the chunks' scores, the model's file prior when the index has vectors) and each
     * file's chunks follow in their order. Chunk lists only (`--files` keeps the rules). Default false.
     */
    fileRanker: z.boolean().default(false),
    /**
     * Companions (issue 18; src/search/companions.ts): when the file evidence of a long text ran,
     * each file at file rank `companionAnchors`+1…20 of its chunk list tied to one of the first
     * `companionAnchors` files (it imports one, one imports it, the package `__init__.py` of one:
     * weight 1; the same directory: 0.5) scores × (1 + companionBoost × weight). Chunk lists only.
     * Range 0–2; 0 is off.
     */
    companionBoost: z.number().min(0).max(2).default(0),
    /** The files a companion is tied to: the first this many of the list. Range 1–10; default 3. */
    companionAnchors: z.number().int().min(1).max(10).default(3),
    /**
     * Recency boost (issue 22, seed 001): score × (1 + recency × 0.5^(age / recencyHalfLifeDays)),
     * from each chunk's content timestamp; a chunk without one is neither boosted nor penalised.
     * Range 0–1; 0 (default, right for code) is off; document collections default to 0.15.
     */
    recency: z.number().min(0).max(1).default(0),
    /** Half-life of the recency boost, in days. Range 1–36500; default 180. */
    recencyHalfLifeDays: z.number().min(1).max(36_500).default(180),
    /**
     * Rank with the learned linear model (models/ranker/weights.json) instead of the rules above and,
     * in hybrid mode, instead of Reciprocal Rank Fusion. Default false.
     */
    learned: z.boolean().default(false),
    /**
     * Query expansion (issue 17): a natural-language query's words are joined by the code tokens
     * they go with in the training pairs (models/expand/: "remove" → delete, unlink), each counting
     * this share of a query word. Identifier, path and long queries are never expanded. Range 0–1;
     * 0 is off.
     */
    expansion: z.number().min(0).max(1).default(0),
    /**
     * The per-file steps per query kind (identifier, path, long, natural; src/search/query-kind.ts):
     * `{ long: { fileCap: 3, fileCapWithin: 0.7 } }` caps long queries only; `{ long: { learned: true } }`
     * ranks them with the learned ranker. A key a kind sets
     * replaces the value above for that kind; `--explain` names the kind's settings. In the hybrid
     * blend (natural-language queries by default) the lexical list is uncapped and undecayed, and a
     * kind's fileCap, fileCapWithin, fileCapSpread and fileDecay set here shape the blended list.
     * Default `{ long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1 } }`: long queries (issue
     * texts, commit messages) show more files in a list of chunks (held-out: 4.9 → 5.4 distinct
     * files in 10, function hit@10 within noise; docs/DESIGN.md "Diversity per query kind"), and
     * long texts of 20+ terms rank files by file evidence (held-out large-repository issue texts:
     * file Acc@5 0.658 → 0.711, MRR 0.690 → 0.757; "Long texts: files first"). A `byKind` in a
     * config replaces this default as a whole: list `long` too to keep it.
     */
    byKind: z
      .object({
        identifier: kindRankingSchema.optional(),
        path: kindRankingSchema.optional(),
        long: kindRankingSchema.optional(),
        natural: kindRankingSchema.optional(),
      })
      .strict()
      .default({ long: { fileDecay: 0.9, fileScore: 0.7, mentionBoost: 1 } }),
  })
  .strict();

/** Reciprocal Rank Fusion of the lexical, vector and symbol lists (docs/DESIGN.md "Hybrid search"). */
export const fusionSchema = z
  .object({
    /** RRF's k: each list adds weight / (k + rank). Range 0–1,000; default 60 (the paper's). */
    k: z.number().min(0).max(1000).default(60),
    /** Per-list weights. Range 0–10 each; 0 leaves a list out. */
    lexical: z.number().min(0).max(10).default(1),
    vector: z.number().min(0).max(10).default(1),
    symbol: z.number().min(0).max(10).default(1),
    /** Results each list contributes before fusion. Range 10–500; default 50. */
    depth: z.number().int().min(10).max(500).default(50),
    /** Most chunks of one file before other files' chunks. 0 is off; default 3. */
    fileCap: z.number().int().min(0).max(100).default(3),
    /**
     * 0: Reciprocal Rank Fusion as above. Above 0: a score-level blend instead, the lexical score +
     * blend × the model's cosine (each over the query's best) over the lexical top 50 and the vector
     * top `depth`, for the kinds `blendByKind` lets through. Range 0–10; default 0.3 (best on the
     * tuning half with builtin v3; with v4 it raises golden natural-language MRR 0.692 → 0.736).
     */
    blend: z.number().min(0).max(10).default(0.3),
    /**
     * In the blend: the weight of the name match (issue 18), the share of the query's words found
     * in the chunk's definition name, its container and its signature (`nameCoverage` of
     * src/search/learned-rank.ts), added to the blended score: a one-sentence description of a
     * function names it in words (`Returns the primary key` → `getPrimaryKey`). Only where the
     * blend applies (natural-language queries by default). Range 0–10; default 0.5 (held-out
     * doc-comment questions: fn@1 +0.05, Acc@5 +0.01 to +0.03; docs/DESIGN.md "Ranking II"); 0 is off.
     */
    blendNames: z.number().min(0).max(10).default(0.5),
    /**
     * With `blendNames` above 0: how many definitions whose names the query names join the blend's
     * candidates (the name list of src/search/name-list.ts: the `symbol` field asked for the query's
     * words, the best-named kept, each scored by the lexical expression). Range 0–100; default 0 (off).
     */
    blendNameDepth: z.number().int().min(0).max(100).default(0),
    /**
     * In the blend: how many of the best files bring their other chunks to the candidates (issue 18,
     * src/search/file-chunks.ts: the function a one-sentence description names often sits in the
     * found file below the lexical top 50), each scored by the lexical expression and ranked by the
     * same blend. Range 0–20; default 0 (off).
     */
    blendFileDepth: z.number().int().min(0).max(20).default(0),
    /** What scores the found files' chunks: `main`, the expression that ranked the lexical list (default); `any`, every kept word OR'ed. */
    blendFileExpression: z.enum(['main', 'any']).default('main'),
    /**
     * The blend weight per query kind (src/search/query-kind.ts): a kind whose weight is 0 is ranked
     * lexically (the vector list does not touch it), or by `filePrior` when that sets the kind. A kind not listed: `blend` for natural-language
     * queries, 0 for identifier, path and long ones (where vectors cost: golden long MRR 0.947 →
     * 0.924 with the blend on them). Range 0–10 each. When every kind's weight is 0, hybrid is rank
     * fusion as above.
     */
    blendByKind: z
      .object({
        identifier: z.number().min(0).max(10).optional(),
        path: z.number().min(0).max(10).optional(),
        long: z.number().min(0).max(10).optional(),
        natural: z.number().min(0).max(10).optional(),
      })
      .strict()
      .default({}),
    /**
     * The model's file prior per query kind (issue 18, docs/DESIGN.md "The model's file prior"): for
     * a kind whose weight w is above 0 (and that `blendByKind` does not blend), each chunk of the
     * lexical ranking counts × (1 − w + w × its file's model score, min-max over the listed files),
     * a file's model score being the mean of the `filePriorTop` best cosines of all its chunks
     * (the files of the lexical top `filePriorPool` chunks are scored, no others). One factor per file: the files move,
     * the chunks inside a file keep their lexical order. Range 0–0.9 each. Default `{ long: 0.3 }`:
     * held-out large-repository issue texts file Acc@5 0.658 → 0.724, MRR@10 +0.047 (both beyond
     * noise), function hit@10 equal. A `filePrior` in a config replaces this default as a whole.
     */
    filePrior: z
      .object({
        identifier: z.number().min(0).max(0.9).optional(),
        path: z.number().min(0).max(0.9).optional(),
        long: z.number().min(0).max(0.9).optional(),
        natural: z.number().min(0).max(0.9).optional(),
      })
      .strict()
      .default({ long: 0.3 }),
    /** Lexical chunks the file prior reorders (their files are the ones it scores). Range 10–1,000; default 100. */
    filePriorPool: z.number().int().min(10).max(1000).default(100),
    /**
     * The model's own file candidates (issue 18, longpool): the files of each query vector's top
     * this many chunks (flat scan) join the file prior's lexical pool, each file's best chunk by
     * cosine placed at the pool's score quantile `filePriorRecallAt` (0 the pool's lowest score), so
     * a file the lexical pool never reaches can rise. Range 0–2,000; default 0 (off).
     */
    filePriorRecall: z.number().int().min(0).max(2000).default(0),
    /** Where a recalled file's chunk starts: the quantile of the pool's lexical scores (0 lowest, 1 best). Default 0. */
    filePriorRecallAt: z.number().min(0).max(1).default(0),
    /** A file's model score is the mean of its this many best chunk cosines. Range 1–10; default 1 (the best). */
    filePriorTop: z.number().int().min(1).max(10).default(1),
    /**
     * The file prior's query side: `none` embeds the whole query; `max` also each of its pieces
     * (paragraphs, code blocks, long paragraphs cut at sentence ends; src/search/query-pieces.ts) and
     * takes a file's best score; `mean` averages the pieces' file scores, each normalised over the
     * listed files. Default `mean` (large-repository tuning issue texts: Acc@5 +0.05 over the whole query alone, +0.03 over `max`).
     */
    filePriorPieces: z.enum(['none', 'max', 'mean']).default('mean'),
  })
  .strict();
