/**
 * Schema 9 (issue 19): the files whose chunks the embedding pass has still to look at. A file is
 * queued in the transaction that writes its chunks, and the queue is emptied when an embedding
 * pass completes, so that a pass after a one-file edit reads that file's chunks, not every chunk
 * of the index (a scan of 10^5 chunks per pass cost about a second). The invariant, kept by every
 * transaction: each chunk of a file not in the queue has a vector for the model named by meta
 * `embed_ready` (see src/indexer/embed-pass.ts). A deleted file leaves the queue with its rows.
 */
export const migration009 = {
  version: 9,
  name: 'embed-queue',
  sql: `
CREATE TABLE embed_queue (
  file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE
);
`,
} as const;
