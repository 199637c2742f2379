// node-mbox ships no types: the one function scry uses (src/discover/formats/mail.ts).
declare module 'node-mbox' {
  import type { Readable } from 'node:stream';
  /** Splits an mbox stream into one Buffer per message (without the `From ` postmark line). */
  export function MboxStream(input: Readable, options?: { includeMboxHeader?: boolean }): Readable;
}
