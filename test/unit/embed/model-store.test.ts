import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../src/core/errors.js';
import { MANIFEST_FILE, modelDirOf } from '../../../src/embed/model-layout.js';
import { listModels, pullModel, removeModel, verifyModel, type PullProgress } from '../../../src/embed/model-store.js';
import { embeddingRepo, startHubServer, type HubServer } from '../../helpers/hub-server.js';
import { tempDir } from '../../helpers/temp.js';

const NAME = 'test-org/mini-embed';
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<EngineError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error('expected a rejection');
}

describe('model store', () => {
  let hub: HubServer;
  let t: ReturnType<typeof tempDir>;
  let dir: string;
  const pull = (name = NAME, extra: Partial<Parameters<typeof pullModel>[1]> = {}) => pullModel(name, { dir, hubUrl: hub.url, ...extra });
  /** Work directories (`.partial-*`, `.old-*`) left in the cache. */
  const leftovers = (): string[] => (existsSync(dir) ? readdirSync(dir).filter((e) => e.startsWith('.')) : []);
  const manifestOf = (name = NAME) => JSON.parse(readFileSync(join(modelDirOf(dir, name), MANIFEST_FILE), 'utf8'));

  beforeAll(async () => {
    hub = await startHubServer();
  });
  afterAll(() => hub.close());
  beforeEach(() => {
    t = tempDir('scry-models-');
    dir = join(t.dir, 'models');
    hub.setRepo(NAME, embeddingRepo(1));
    hub.fault = () => undefined;
    hub.requests.length = 0;
  });
  afterEach(() => t.cleanup());

  describe('pullModel', () => {
    it('downloads what an embedding model needs, with a manifest of sizes and sha256', async () => {
      const files = embeddingRepo(1);
      const { sha } = hub.setRepo(NAME, files);
      const progress: PullProgress[] = [];
      const result = await pull(NAME, { now: () => new Date('2025-01-02T03:04:05.000Z'), onProgress: (p) => progress.push(p) });

      const modelDir = join(dir, 'test-org--mini-embed');
      expect(result).toMatchObject({ name: NAME, dir: modelDir, replaced: false });
      const wanted = ['tokenizer.json', 'config.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model.onnx'];
      const manifest = manifestOf();
      expect(manifest).toEqual({
        format: 1,
        name: NAME,
        revision: 'main',
        commit: sha,
        hubUrl: hub.url,
        pulledAt: '2025-01-02T03:04:05.000Z',
        model: 'onnx/model.onnx',
        files: wanted.map((path) => {
          const content = Buffer.from(files[path]!);
          return { path, size: content.length, sha256: sha256(content) };
        }),
      });
      expect(result.manifest).toEqual(manifest);
      // Buffer.equals: a deep toEqual over 300 kB takes seconds
      for (const path of wanted) expect(readFileSync(join(modelDir, path)).equals(Buffer.from(files[path]!)), path).toBe(true);
      // README, PyTorch weights and other ONNX variants are not pulled
      expect(existsSync(join(modelDir, 'pytorch_model.bin'))).toBe(false);
      expect(existsSync(join(modelDir, 'onnx/model_fp16.onnx'))).toBe(false);
      expect(result.bytes).toBe(manifest.files.reduce((s: number, f: { size: number }) => s + f.size, 0));
      expect(leftovers()).toEqual([]);

      // progress: bytes only grow, and end at the total the hub listed
      const last = progress.at(-1)!;
      expect(last).toMatchObject({ file: 'onnx/model.onnx', bytesDone: result.bytes, bytesTotal: result.bytes, filesTotal: 5 });
      expect(progress.every((p, i) => i === 0 || p.bytesDone >= progress[i - 1]!.bytesDone)).toBe(true);
      expect(progress.filter((p) => p.file === 'onnx/model.onnx').length).toBeGreaterThan(1);

      // one listing, then one resolve per file, and the CDN hop for the LFS file; nothing else
      expect(hub.requests.map((r) => r.route).sort()).toEqual(['api', 'cdn', 'resolve', 'resolve', 'resolve', 'resolve', 'resolve']);
      expect(hub.requests.find((r) => r.route === 'api')!.url).toBe(`/api/models/${NAME}/revision/main?blobs=true`);
      expect(hub.requests.filter((r) => r.route === 'resolve').every((r) => r.url.startsWith(`/${NAME}/resolve/${sha}/`))).toBe(true);
    });

    it('pulls a revision by commit, the quantized graph on request, a root-level model.onnx, and extra files', async () => {
      const files = { ...embeddingRepo(2, { quantized: true }), '1_Pooling/config.json': '{"pooling_mode_mean_tokens": true}' };
      const { sha } = hub.setRepo(NAME, files);
      const q = await pull(NAME, { revision: sha, quantized: true, files: ['1_Pooling/config.json'] });
      expect(q.manifest).toMatchObject({ revision: sha, commit: sha, model: 'onnx/model_quantized.onnx' });
      expect(q.manifest.files.map((f) => f.path)).toEqual(['tokenizer.json', 'config.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx', '1_Pooling/config.json']);

      // --quantized only prefers: without a quantized graph the full one is taken
      hub.setRepo('a/root-onnx', { 'tokenizer.json': '{}', 'model.onnx': Buffer.from('graph') });
      const root = await pull('a/root-onnx', { quantized: true });
      expect(root.manifest.model).toBe('model.onnx');
      expect(root.manifest.files.map((f) => f.path)).toEqual(['tokenizer.json', 'model.onnx']);
    });

    it('re-pulling replaces the model in one rename and leaves no work directories', async () => {
      await pull();
      const { sha } = hub.setRepo(NAME, embeddingRepo(7));
      const again = await pull();
      expect(again.replaced).toBe(true);
      expect(manifestOf().commit).toBe(sha);
      expect(readFileSync(join(again.dir, 'onnx/model.onnx')).equals(embeddingRepo(7)['onnx/model.onnx'] as Buffer)).toBe(true);
      expect((await verifyModel(dir, NAME)).ok).toBe(true);
      expect(leftovers()).toEqual([]);
    });

    describe('a failed pull leaves the previous copy intact and nothing partial behind', () => {
      let before: string;
      beforeEach(async () => {
        await pull();
        before = manifestOf().commit;
        hub.setRepo(NAME, embeddingRepo(9)); // a new commit on the hub
        hub.requests.length = 0;
      });
      const intact = async (): Promise<void> => {
        expect(manifestOf().commit).toBe(before);
        expect(await verifyModel(dir, NAME)).toMatchObject({ ok: true, problems: [] });
        expect(leftovers()).toEqual([]);
      };

      it('an LFS file whose bytes differ from the X-Linked-Etag sha256 → MODEL_INVALID', async () => {
        hub.fault = (r) => (r.route === 'cdn' ? { corrupt: true } : undefined);
        const err = await rejection(pull());
        expect(err.code).toBe('MODEL_INVALID');
        expect(err.message).toMatch(/onnx\/model\.onnx: sha256 [0-9a-f]{64} differs from the hub's [0-9a-f]{64}/);
        await intact();
      });

      it('the same, when only the headers vouch for the file (listing without blob metadata)', async () => {
        hub.fault = (r) => (r.route === 'cdn' ? { corrupt: true } : undefined);
        const noBlobs: typeof fetch = (input, init) => fetch(String(input).replace('?blobs=true', ''), init);
        const err = await rejection(pull(NAME, { fetch: noBlobs }));
        expect(err.code).toBe('MODEL_INVALID');
        expect(hub.requests.find((r) => r.route === 'api')!.url).not.toContain('blobs');
        await intact();
      });

      it("the CDN's own ETag is not taken for the content's hash, even when it looks like one", async () => {
        hub.cdnEtag = () => `"${'ab'.repeat(32)}"`; // 64 hex digits, as a Xet bridge's hash
        try {
          const good = await pull();
          expect(good.manifest.commit).not.toBe(before);
          before = good.manifest.commit;
          hub.fault = (r) => (r.route === 'cdn' ? { corrupt: true } : undefined);
          expect((await rejection(pull())).code).toBe('MODEL_INVALID');
          await intact();
        } finally {
          hub.cdnEtag = (content) => `"${createHash('md5').update(content).digest('hex')}"`;
        }
      });

      it('a small file whose bytes differ from its git blob sha1 ETag → MODEL_INVALID', async () => {
        hub.fault = (r) => (r.route === 'resolve' && r.path === 'tokenizer.json' ? { corrupt: true } : undefined);
        const err = await rejection(pull());
        expect(err.code).toBe('MODEL_INVALID');
        expect(err.message).toContain('tokenizer.json');
        await intact();
      });

      it('a body cut off before Content-Length → IO_ERROR', async () => {
        hub.fault = (r) => (r.route === 'cdn' ? { truncateAt: 100_000 } : undefined);
        const err = await rejection(pull());
        expect(err.code).toBe('IO_ERROR');
        expect(err.message).toMatch(/broke off after \d+ of 300000 bytes/);
        await intact();
      });

      it('a 500 from the hub → IO_ERROR', async () => {
        hub.fault = (r) => (r.route === 'resolve' && r.path === 'config.json' ? { status: 500 } : undefined);
        expect((await rejection(pull())).code).toBe('IO_ERROR');
        await intact();
      });

      it('a hub that stops sending → IO_ERROR after the stall timeout', async () => {
        hub.fault = (r) => (r.route === 'cdn' ? { hang: true } : undefined);
        const err = await rejection(pull(NAME, { stallTimeoutMs: 300 }));
        expect(err.code).toBe('IO_ERROR');
        expect(err.message).toContain('nothing arrived for 0.3 s');
        await intact();
      });

      it('an aborted pull (a slow hub, then the signal)', async () => {
        hub.fault = (r) => (r.route === 'cdn' ? { hang: true } : undefined);
        const controller = new AbortController();
        const pulling = pull(NAME, { signal: controller.signal });
        setTimeout(() => controller.abort(new Error('stop')), 200);
        await expect(pulling).rejects.toThrow('stop');
        await intact();
      });
    });

    it('a slow hub is waited for, as long as something arrives within the stall timeout', async () => {
      hub.fault = (r) => (r.route !== 'api' ? { delayMs: 150 } : undefined);
      const result = await pull(NAME, { stallTimeoutMs: 2000 });
      expect(result.manifest.files).toHaveLength(5);
    });

    it('names the problem when the hub has no such model, revision, ONNX export or tokenizer', async () => {
      expect((await rejection(pull('nobody/nothing'))).code).toBe('MODEL_NOT_FOUND');
      expect((await rejection(pull(NAME, { revision: 'no-such-branch' }))).code).toBe('MODEL_NOT_FOUND');
      hub.setRepo('a/pytorch-only', embeddingRepo(3, { onnx: false }));
      const noOnnx = await rejection(pull('a/pytorch-only'));
      expect(noOnnx.code).toBe('INVALID_ARGUMENT');
      expect(noOnnx.message).toContain('has no ONNX export');
      hub.setRepo('a/no-tokenizer', embeddingRepo(3, { tokenizer: false }));
      expect((await rejection(pull('a/no-tokenizer'))).message).toContain('has no tokenizer.json');
      expect((await rejection(pull(NAME, { files: ['missing.txt'] }))).code).toBe('INVALID_ARGUMENT');
      hub.fault = (r) => (r.route === 'api' ? { status: 503 } : undefined);
      expect((await rejection(pull())).code).toBe('IO_ERROR');
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    });

    it('removes work directories of pulls whose process died, and only those', async () => {
      mkdirSync(join(dir, '.partial-test-org--mini-embed-999999999-abcdef'), { recursive: true });
      mkdirSync(join(dir, '.old-test-org--mini-embed-999999999-0123abcd'));
      mkdirSync(join(dir, `.partial-test-org--other-${process.pid}-xyz123`));
      await pull();
      expect(leftovers()).toEqual([`.partial-test-org--other-${process.pid}-xyz123`]);
    });
  });

  it('rejects names that are not hub ids before any request or write', async () => {
    for (const bad of ['../evil', 'a/../../etc', '..', 'a/b/c', '/abs/path', 'a\\b', 'owner/..', '', 'noslash', '.hidden/x']) {
      expect((await rejection(pull(bad))).code).toBe('INVALID_ARGUMENT');
      expect((await rejection(verifyModel(dir, bad))).code).toBe('INVALID_ARGUMENT');
      expect((await rejection(removeModel(dir, bad))).code).toBe('INVALID_ARGUMENT');
    }
    for (const file of ['../x', '/etc/passwd', 'a/../../x', MANIFEST_FILE]) {
      expect((await rejection(pull(NAME, { files: [file] }))).code).toBe('INVALID_ARGUMENT');
    }
    expect(hub.requests.filter((r) => r.route !== 'api')).toEqual([]);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  describe('verifyModel', () => {
    it('re-hashes every file and reports what changed, went missing or appeared', async () => {
      const { dir: modelDir } = await pull();
      expect(await verifyModel(dir, NAME)).toMatchObject({ name: NAME, dir: modelDir, ok: true, files: 5, problems: [] });

      const graph = join(modelDir, 'onnx/model.onnx');
      const bytes = readFileSync(graph);
      bytes[10]! ^= 1; // same size: only a hash can tell
      writeFileSync(graph, bytes);
      truncateSync(join(modelDir, 'config.json'), 3);
      rmSync(join(modelDir, 'tokenizer_config.json'));
      writeFileSync(join(modelDir, 'model.onnx'), 'a stray graph a loader could pick up');

      const v = await verifyModel(dir, NAME);
      expect(v.ok).toBe(false);
      expect(v.problems.map((p) => [p.kind, p.path])).toEqual([
        ['size', 'config.json'],
        ['missing', 'tokenizer_config.json'],
        ['sha256', 'onnx/model.onnx'],
        ['extra', 'model.onnx'],
      ]);
      // the cheap check of `list` sees sizes, not hashes
      const [listed] = await listModels(dir);
      expect(listed!.problems.map((p) => p.kind)).toEqual(['size', 'missing', 'extra']);
    });

    it('reports a missing or broken manifest, and required files it lacks', async () => {
      const { dir: modelDir } = await pull();
      const manifest = manifestOf();
      writeFileSync(join(modelDir, MANIFEST_FILE), JSON.stringify({ ...manifest, files: manifest.files.filter((f: { path: string }) => f.path !== 'tokenizer.json') }));
      rmSync(join(modelDir, 'tokenizer.json'));
      expect((await verifyModel(dir, NAME)).problems).toEqual([{ kind: 'required', path: 'tokenizer.json', message: 'required, but not in the manifest' }]);
      writeFileSync(join(modelDir, MANIFEST_FILE), '{"format": 99}');
      expect((await verifyModel(dir, NAME)).problems).toMatchObject([{ kind: 'manifest', path: MANIFEST_FILE }]);
      rmSync(join(modelDir, MANIFEST_FILE));
      expect((await verifyModel(dir, NAME)).problems[0]!.message).toMatch(/no manifest/);
    });

    it('MODEL_NOT_FOUND for a model that is not in the cache', async () => {
      const err = await rejection(verifyModel(dir, 'not/pulled'));
      expect(err.code).toBe('MODEL_NOT_FOUND');
      expect(err.message).toContain('not/pulled');
    });
  });

  describe('listModels and removeModel', () => {
    it('list: nothing for a missing cache; pulled models by name; unfinished or foreign directories marked', async () => {
      expect(await listModels(dir)).toEqual([]);
      hub.setRepo('b-org/second', embeddingRepo(5));
      await pull('b-org/second');
      await pull();
      mkdirSync(join(dir, 'c-org--half-done'));
      mkdirSync(join(dir, 'not-a-model-dir'));
      const models = await listModels(dir);
      expect(models.map((m) => [m.name, m.ok])).toEqual([
        ['b-org/second', true],
        ['c-org/half-done', false],
        [NAME, true],
      ]);
      expect(models[2]).toMatchObject({ revision: 'main', model: 'onnx/model.onnx', commit: manifestOf().commit, problems: [] });
      expect(models[2]!.files).toHaveLength(5);
      expect(models[2]!.bytes).toBe(models[2]!.files.reduce((s, f) => s + f.size, 0));
      expect(models[1]).toMatchObject({ revision: null, files: [], problems: [{ kind: 'manifest' }] });
    });

    it('remove deletes the directory and reports the bytes freed; a second remove is MODEL_NOT_FOUND', async () => {
      const pulled = await pull();
      const removed = await removeModel(dir, NAME);
      expect(removed).toEqual({ name: NAME, dir: pulled.dir, bytes: pulled.bytes + manifestBytes(pulled.manifest) });
      expect(existsSync(pulled.dir)).toBe(false);
      expect(leftovers()).toEqual([]);
      expect((await rejection(removeModel(dir, NAME))).code).toBe('MODEL_NOT_FOUND');
    });
  });
});

function manifestBytes(manifest: unknown): number {
  return Buffer.byteLength(`${JSON.stringify(manifest, null, 2)}\n`);
}
