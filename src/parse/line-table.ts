/**
 * Line and byte geometry of a text: where each line starts, in UTF-16 code units (JS string
 * indices) and in UTF-8 bytes (what chunks store). Built once per file.
 */
export class LineTable {
  /** Char offset where each line starts; a final entry holds text.length. */
  readonly charStarts: number[];
  /** UTF-8 byte offset where each line starts; a final entry holds the byte length. */
  readonly byteStarts: number[];

  constructor(readonly text: string) {
    this.charStarts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.charStarts.push(i + 1);
    if (this.charStarts[this.charStarts.length - 1] !== text.length || text.length === 0) this.charStarts.push(text.length);
    // eslint-disable-next-line no-control-regex
    const ascii = !/[^\x00-\x7f]/.test(text);
    if (ascii) {
      this.byteStarts = this.charStarts;
    } else {
      this.byteStarts = [0];
      for (let l = 0; l < this.charStarts.length - 1; l++) {
        const line = text.slice(this.charStarts[l], this.charStarts[l + 1]);
        this.byteStarts.push(this.byteStarts[l]! + Buffer.byteLength(line, 'utf8'));
      }
    }
  }

  /** Number of lines (a trailing newline does not start a new line). */
  get count(): number {
    return this.charStarts.length - 1;
  }

  /** Text of 0-based line `l`, without its line terminator. */
  line(l: number): string {
    return this.text.slice(this.charStarts[l], this.charStarts[l + 1]).replace(/\r?\n$/, '');
  }

  isBlank(l: number): boolean {
    return this.line(l).trim() === '';
  }

  /** Bytes of 0-based line `l`, terminator included. */
  lineBytes(l: number): number {
    return this.byteStarts[l + 1]! - this.byteStarts[l]!;
  }

  /** UTF-8 byte offset of char offset `index` (a JS string index) on 0-based line `row`. */
  byteAt(row: number, index: number): number {
    const from = this.charStarts[row]!;
    if (this.byteStarts === this.charStarts) return index;
    return this.byteStarts[row]! + Buffer.byteLength(this.text.slice(from, index), 'utf8');
  }

  /** Byte range of lines [first, last] (0-based, inclusive), trailing newline of `last` excluded. */
  byteRange(first: number, last: number): { startByte: number; endByte: number } {
    const startByte = this.byteStarts[first]!;
    let endByte = this.byteStarts[last + 1]!;
    const lineText = this.text.slice(this.charStarts[last], this.charStarts[last + 1]);
    if (lineText.endsWith('\r\n')) endByte -= 2;
    else if (lineText.endsWith('\n')) endByte -= 1;
    return { startByte, endByte };
  }
}
