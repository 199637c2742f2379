/**
 * FTS5's `bm25()` over stored postings, for the team index (issue 23): the same candidate set and
 * the same score as SQLite's FTS5 gives for scry's MATCH expressions, computed in process from
 * postings read out of PostgreSQL. Pure: no I/O.
 *
 * What FTS5 computes (sqlite/ext/fts5/fts5_aux.c, `fts5Bm25Function`), for a row D of a table of
 * N rows and T tokens (all columns), for each phrase i of the expression (a phrase written twice
 * counts twice):
 *   f_i   = Σ over instances of phrase i in D of the weight of the instance's column
 *   idf_i = ln((N − n_i + 0.5) / (n_i + 0.5)), or 1e-6 when that is ≤ 0; n_i = rows matching phrase i
 *   bm25  = −Σ_i idf_i · f_i · (k1 + 1) / (f_i + k1 · (1 − b + b · |D| / (T / N)))
 * with k1 = 1.2, b = 0.75 and |D| the row's token count over all columns.
 */

export const FTS5_K1 = 1.2;
export const FTS5_B = 0.75;

export type ExprNode = { readonly kind: 'phrase'; readonly index: number } | { readonly kind: 'and' | 'or'; readonly children: readonly ExprNode[] };

/** A parsed MATCH expression: the tree and each phrase's text, in order of appearance. */
export interface ParsedExpression {
  readonly root: ExprNode;
  readonly phrases: readonly string[];
}

/**
 * Parses the MATCH expressions scry builds (src/search/fts-expression.ts): `"quoted phrases"`
 * (a `""` inside is a quote), `AND`, `OR` and parentheses, AND binding tighter than OR as in FTS5.
 * Anything else is refused: this is not a general FTS5 parser.
 */
export function parseFtsExpression(expression: string): ParsedExpression {
  const phrases: string[] = [];
  let pos = 0;
  const skip = (): void => {
    while (expression[pos] === ' ') pos++;
  };
  const fail = (what: string): never => {
    throw new Error(`unsupported FTS expression at ${pos}: ${what}`);
  };
  const primary = (): ExprNode => {
    skip();
    if (expression[pos] === '(') {
      pos++;
      const inner = or();
      skip();
      if (expression[pos] !== ')') fail('expected )');
      pos++;
      return inner;
    }
    if (expression[pos] !== '"') fail('expected a quoted phrase');
    let text = '';
    pos++;
    for (;;) {
      if (pos >= expression.length) fail('unterminated phrase');
      if (expression[pos] === '"') {
        if (expression[pos + 1] === '"') {
          text += '"';
          pos += 2;
          continue;
        }
        pos++;
        break;
      }
      text += expression[pos++];
    }
    phrases.push(text);
    return { kind: 'phrase', index: phrases.length - 1 };
  };
  const keyword = (word: string): boolean => {
    skip();
    if (expression.startsWith(`${word} `, pos) || expression.startsWith(`${word}(`, pos) || expression.startsWith(`${word}"`, pos)) {
      pos += word.length;
      return true;
    }
    return false;
  };
  const and = (): ExprNode => {
    const children = [primary()];
    while (keyword('AND')) children.push(primary());
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  };
  const or = (): ExprNode => {
    const children = [and()];
    while (keyword('OR')) children.push(and());
    return children.length === 1 ? children[0]! : { kind: 'or', children };
  };
  const root = or();
  skip();
  if (pos !== expression.length) fail('trailing text');
  return { root, phrases };
}

/** Postings of one row (a chunk's posting set): term → column → ascending positions. */
export type RowPostings = ReadonlyMap<string, ReadonlyMap<number, readonly number[]>>;

/** One row of the table: its postings, token count, and how many chunk rows share them. */
export interface ScoredRow {
  readonly postings: RowPostings;
  readonly length: number;
  readonly multiplicity: number;
}

/** Instances of the phrase `terms` per column of a row (consecutive positions; instances may overlap). */
export function phraseCounts(row: RowPostings, terms: readonly string[]): Map<number, number> {
  const out = new Map<number, number>();
  if (terms.length === 0) return out;
  const first = row.get(terms[0]!);
  if (!first) return out;
  for (const [col, starts] of first) {
    let n = 0;
    if (terms.length === 1) n = starts.length;
    else {
      const rest = terms.slice(1).map((t) => new Set(row.get(t)?.get(col) ?? []));
      if (rest.some((s) => s.size === 0)) continue;
      for (const p of starts) if (rest.every((s, k) => s.has(p + k + 1))) n++;
    }
    if (n > 0) out.set(col, n);
  }
  return out;
}

function matches(node: ExprNode, present: readonly boolean[]): boolean {
  if (node.kind === 'phrase') return present[node.index]!;
  return node.kind === 'and' ? node.children.every((c) => matches(c, present)) : node.children.some((c) => matches(c, present));
}

/** FTS5's idf with its floor. */
export function fts5Idf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/**
 * The rows matching the expression with their `bm25` (negative; lower is better), as FTS5 gives
 * them. `phraseTerms[i]` are phrase i's terms as the tokenizer produced them; `rows` must hold
 * every row containing any of those terms (n_i counts over them, multiplicity included);
 * `totalRows` and `totalTokens` are the table's N and T; `weights` are per column.
 */
export function fts5Bm25<K>(
  expression: ParsedExpression,
  phraseTerms: readonly (readonly string[])[],
  rows: ReadonlyMap<K, ScoredRow>,
  totals: { readonly rows: number; readonly tokens: number },
  weights: readonly number[],
): Map<K, number> {
  const n = expression.phrases.length;
  const counts = new Map<K, Array<Map<number, number>>>();
  const hits = new Array<number>(n).fill(0);
  // a phrase repeated in the expression is counted once per distinct term list
  const byKey = new Map<string, number[]>();
  phraseTerms.forEach((t, i) => {
    const key = t.join('\0');
    const list = byKey.get(key);
    if (list) list.push(i);
    else byKey.set(key, [i]);
  });
  for (const [id, row] of rows) {
    const perPhrase = new Array<Map<number, number>>(n);
    for (const idx of byKey.values()) {
      const c = phraseCounts(row.postings, phraseTerms[idx[0]!]!);
      for (const i of idx) {
        perPhrase[i] = c;
        if (c.size > 0) hits[i]! += row.multiplicity;
      }
    }
    counts.set(id, perPhrase);
  }
  const idf = hits.map((h) => fts5Idf(totals.rows, h));
  const avgdl = totals.tokens / totals.rows;
  const out = new Map<K, number>();
  for (const [id, perPhrase] of counts) {
    if (!matches(expression.root, perPhrase.map((c) => c.size > 0))) continue;
    const row = rows.get(id)!;
    let score = 0;
    for (let i = 0; i < n; i++) {
      let f = 0;
      for (const [col, k] of perPhrase[i]!) f += (weights[col] ?? 1) * k;
      score += idf[i]! * ((f * (FTS5_K1 + 1)) / (f + FTS5_K1 * (1 - FTS5_B + (FTS5_B * row.length) / avgdl)));
    }
    out.set(id, -1 * score);
  }
  return out;
}
