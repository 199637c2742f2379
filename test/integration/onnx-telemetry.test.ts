import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { writeTinyEmbedder } from '../helpers/tiny-onnx.js';

const CHILD = fileURLToPath(new URL('../helpers/onnx-load-child.ts', import.meta.url));
const TSX = ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];

/**
 * Issue 24: loading onnxruntime-node wrote telemetry state under the user's home
 * (`~/.cache/Microsoft/DeveloperTools/.onnxruntime/`). scry writes nothing outside its own cache
 * and the index. Each run is a fresh process with HOME pointed at an empty directory, so the
 * environment is what the native library sees when it loads.
 */
describe('loading the ONNX runtime writes nothing under HOME', () => {
  let t: ReturnType<typeof tempDir>;
  let model: string;

  beforeAll(() => {
    t = tempDir('scry-ort-home-');
    model = writeTinyEmbedder(join(t.dir, 'model'));
  });
  afterAll(() => t.cleanup());

  const load = (home: string, extra: Record<string, string> = {}): string[] => {
    mkdirSync(home);
    const r = spawnSync(process.execPath, [...TSX, CHILD, model], { env: { PATH: process.env.PATH ?? '', HOME: home, ...extra }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ dimensions: 3 });
    return readdirSync(home, { recursive: true }).map(String);
  };

  it('scry turns telemetry off before the runtime loads: HOME stays empty', () => {
    expect(load(join(t.dir, 'home'))).toEqual([]);
  });

  it('control: with telemetry explicitly on (a user setting scry leaves alone), the runtime does write there', () => {
    const written = load(join(t.dir, 'home-telemetry-on'), { ORT_DISABLE_TELEMETRY: '0' });
    expect(written.some((f) => f.includes('.onnxruntime'))).toBe(true);
  });
});
