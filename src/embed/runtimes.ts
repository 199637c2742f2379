import { createRequire } from 'node:module';
import { EngineError } from '../core/errors.js';
import { USE_LITE_PACKAGES } from './use-lite-provider.js';

/**
 * The optional model runtimes (issue 24). scry installs lean: lexical search, tree-sitter and the
 * HTTP providers (ollama, openai) need nothing more. Two runtimes are an explicit opt-in, installed
 * beside scry (peer dependencies, optional): onnxruntime-node (~290 MB; `embed.provider: "onnx"`
 * and the cross-encoder reranker) and the USE-lite packages (~30 MB; `embed.provider: "use-lite"`).
 * They used to be optional dependencies, which npm dropped silently whenever onnxruntime-node's
 * postinstall download failed (offline, global installs), so scry behaved differently by install path.
 */
export const ONNX_RUNTIME_PACKAGE = 'onnxruntime-node';

/** The version range scry is tested with; the install command in hints and docs pins it. */
export const ONNX_RUNTIME_RANGE = '1.30.0';

export const ONNX_INSTALL_HINT = `install the optional runtime beside scry: \`npm install -g ${ONNX_RUNTIME_PACKAGE}@${ONNX_RUNTIME_RANGE}\` (or without -g in the project that installed scry), or pick another provider`;

/** One optional runtime and whether this installation can load it. */
export interface RuntimeStatus {
  /** `onnx` (onnxruntime-node) or `use-lite` (the @energetic-ai packages). */
  readonly name: 'onnx' | 'use-lite';
  /** Resolvable from scry's own location (installed beside it or in a parent node_modules). */
  readonly installed: boolean;
  /** The npm packages it needs. */
  readonly packages: readonly string[];
  /** What needs it. */
  readonly usedBy: string;
}

/**
 * Which optional runtimes are installed. Resolves their package entry points without loading
 * them (loading onnxruntime-node costs ~100 ms and starts its native threads).
 */
export function optionalRuntimes(): RuntimeStatus[] {
  const require = createRequire(import.meta.url);
  const has = (name: string): boolean => {
    try {
      require.resolve(name);
      return true;
    } catch {
      return false;
    }
  };
  return [
    { name: 'onnx', installed: has(ONNX_RUNTIME_PACKAGE), packages: [ONNX_RUNTIME_PACKAGE], usedBy: 'embed.provider "onnx", rerank.provider "cross-encoder"' },
    { name: 'use-lite', installed: USE_LITE_PACKAGES.every(has), packages: [...USE_LITE_PACKAGES], usedBy: 'embed.provider "use-lite"' },
  ];
}

/**
 * Loads onnxruntime-node: the one place scry does (the ONNX embedder and the cross-encoder get it
 * from here). Returns the module untyped so that no public declaration names onnxruntime-node, which
 * a consumer project does not have; callers cast it to its type.
 *
 * Telemetry: the native library otherwise starts a telemetry system that persists a device id
 * under the user's home (`~/.cache/Microsoft/DeveloperTools/.onnxruntime/`) and may upload events.
 * scry writes nothing outside its cache and the index and talks only to configured endpoints, so
 * `ORT_DISABLE_TELEMETRY=1` is set before the library loads. This is the one write to process.env
 * outside config/: the library reads its own environment when it loads, and onnxruntime-node has
 * no API to turn telemetry off before that. A value the user set is left as it is.
 */
export async function loadOnnxRuntime(importOrt: () => Promise<unknown> = () => import(ONNX_RUNTIME_PACKAGE)): Promise<unknown> {
  // the documented exception to "only config/ reads process.env": a write for the native library, see above
  // eslint-disable-next-line no-restricted-properties
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
  try {
    return await importOrt();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    const reason = missing ? `${ONNX_RUNTIME_PACKAGE} is not installed` : `${ONNX_RUNTIME_PACKAGE} does not load: ${err instanceof Error ? err.message : String(err)}`;
    throw new EngineError('EMBEDDING_UNAVAILABLE', { provider: 'onnx', reason }, { cause: err, hint: ONNX_INSTALL_HINT });
  }
}
