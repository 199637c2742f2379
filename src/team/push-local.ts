import type { CommittedRevision, PushSource, TeamStore } from './team-store.js';

/** Postings or bodies sent per call. */
const BATCH = 2000;
/** Manifest files sent per call. */
const FILES_PER_CALL = 500;

/**
 * A whole push in process (what `scry push` does over HTTP): ensure the repository, open a
 * revision, send only the postings and bodies the store lacks, commit the manifest; on any failure
 * abort the revision, so nothing of it is ever visible.
 */
export async function pushToStore(store: TeamStore, repo: string, source: PushSource): Promise<CommittedRevision & { sentChunks: number; sentContents: number }> {
  await store.ensureRepo(repo);
  const revision = await store.beginRevision(repo);
  try {
    const files = source.manifest.files;
    const needChunks = await store.missingChunks(repo, files.flatMap((f) => f.chunks.map((c) => c.postings)));
    for (let i = 0; i < needChunks.length; i += BATCH) await store.putChunks(revision, source.chunks(needChunks.slice(i, i + BATCH)));
    const needContents = await store.missingContents(repo, files.map((f) => f.content));
    for (let i = 0; i < needContents.length; i += BATCH) await store.putContents(revision, source.contents(needContents.slice(i, i + BATCH)));
    const vectors = source.vectors();
    if (vectors && vectors.vectors.length > 0) await store.putVectors(revision, vectors);
    // the manifest in batches of files (as a push over HTTP sends it), the last one with the commit
    for (let i = 0; i + FILES_PER_CALL < files.length; i += FILES_PER_CALL) await store.putFiles(revision, files.slice(i, i + FILES_PER_CALL));
    const committed = await store.commitRevision(revision, { files: files.slice(Math.max(0, Math.ceil(files.length / FILES_PER_CALL) - 1) * FILES_PER_CALL) });
    return { ...committed, sentChunks: needChunks.length, sentContents: needContents.length };
  } catch (err) {
    await store.abortRevision(revision).catch(() => undefined);
    throw err;
  }
}
