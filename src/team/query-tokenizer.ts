import { IndexStore } from '../store/index-store.js';

/**
 * scry's FTS5 tokenizer (porter, unicode61, `_` a token character) for a process that ranks
 * postings tokenized elsewhere (the team server): an empty in-memory index whose
 * `SearchRepo.termStats` runs words through the same temporary FTS5 table the SQLite search path
 * uses, so query words are stemmed exactly as the pushed index stemmed its text.
 */
export class QueryTokenizer {
  private readonly store = IndexStore.open(':memory:', { create: true });

  /** The terms each word becomes, in order (`index` is the word's position in `words`); a word that yields none is absent. */
  tokenize(words: readonly string[]): Array<{ index: number; term: string }> {
    return this.store.search.termStats(words).map((s) => ({ index: s.index, term: s.term }));
  }

  close(): void {
    this.store.close();
  }
}
