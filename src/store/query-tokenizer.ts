import Database from 'better-sqlite3';

const TOKENIZER = `"porter unicode61 remove_diacritics 2 tokenchars '_'"`;

/**
 * scry's FTS5 tokenizer (porter, unicode61, `_` a token character) without an index: an
 * in-memory SQLite database with one FTS5 table, for a process that ranks postings tokenized
 * elsewhere (the team server of issue 23) and must stem query words exactly as the index did.
 * The same tokenizer settings as `chunks_fts` (migration 004) and `SearchRepo.termStats`.
 */
export class QueryTokenizer {
  private readonly db: Database.Database;
  private readonly clear;
  private readonly insert;
  private readonly terms;

  constructor() {
    this.db = new Database(':memory:');
    this.db.exec(`CREATE VIRTUAL TABLE qtok USING fts5(t, tokenize = ${TOKENIZER});
      CREATE VIRTUAL TABLE qtok_vocab USING fts5vocab(qtok, 'instance');`);
    this.clear = this.db.prepare('DELETE FROM qtok');
    this.insert = this.db.prepare<[number, string]>('INSERT INTO qtok(rowid, t) VALUES (?, ?)');
    this.terms = this.db.prepare<[], { index: number; term: string }>('SELECT doc AS "index", term FROM qtok_vocab ORDER BY doc, offset');
  }

  /** The terms each word becomes, in order (`index` is the word's position in `words`); a word that yields none is absent. */
  tokenize(words: readonly string[]): Array<{ index: number; term: string }> {
    if (words.length === 0) return [];
    return this.db.transaction(() => {
      this.clear.run();
      words.forEach((w, i) => this.insert.run(i, w));
      return this.terms.all();
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
