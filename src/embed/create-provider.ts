/**
 * The one place an embedding provider is built from `embed.*` config. Construction makes no
 * request and loads no model; what can fail at run time (a server down, a model missing, a key
 * unset) fails from `fingerprint()` / `embed()` with the contract's codes, so that the engine can
 * answer lexically instead. Only a config no provider could satisfy throws here.
 */
import type { EmbedConfig } from '../config/schema.js';
import { EngineError } from '../core/errors.js';
import type { BuiltinDeps } from './builtin-provider.js';
import { createBuiltinProvider } from './builtin-provider.js';
import type { HttpEmbedDeps } from './http-embed.js';
import type { OnnxEmbedderDeps } from './onnx-embedder.js';
import { createOnnxEmbedder } from './onnx-embedder.js';
import { createOllamaProvider } from './ollama-provider.js';
import { createOpenAiProvider } from './openai-provider.js';
import type { EmbeddingProvider } from './provider.js';
import type { UseLiteDeps } from './use-lite-provider.js';
import { createUseLiteProvider } from './use-lite-provider.js';

export interface EmbeddingProviderDeps extends HttpEmbedDeps, OnnxEmbedderDeps, UseLiteDeps, BuiltinDeps {
  /** Where pulled models live (`models.dir`, resolved); read by the `onnx` provider with `embed.onnx.model`. */
  readonly modelsDir: string;
  /** The OpenAI-compatible API key. Default: `env[embed.openai.apiKeyEnv]`. */
  readonly apiKey?: string | undefined;
  /** The environment config/ resolved, where `embed.openai.apiKeyEnv` is looked up. Default: empty. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The provider `config.provider` names, or undefined for `none`. Throws CONFIG_INVALID for a section that is missing. */
export function createEmbeddingProvider(config: EmbedConfig, deps: EmbeddingProviderDeps): EmbeddingProvider | undefined {
  const { batchSize, timeoutMs, retries } = config;
  switch (config.provider) {
    case 'none':
      return undefined;
    case 'builtin':
      return createBuiltinProvider({ batchSize }, deps);
    case 'ollama':
      return createOllamaProvider({ ...config.ollama, batchSize, timeoutMs, retries }, deps);
    case 'openai': {
      const openai = config.openai ?? missing('openai');
      const apiKey = deps.apiKey ?? (openai.apiKeyEnv !== undefined ? deps.env?.[openai.apiKeyEnv] : undefined);
      return createOpenAiProvider(
        { baseUrl: openai.baseUrl, model: openai.model, dimensions: openai.dimensions, apiKeyEnv: openai.apiKeyEnv, batchSize, timeoutMs, retries },
        { ...deps, apiKey },
      );
    }
    case 'onnx': {
      const onnx = config.onnx ?? missing('onnx');
      return createOnnxEmbedder({ ...onnx, modelsDir: deps.modelsDir, batchSize }, deps);
    }
    case 'use-lite':
      return createUseLiteProvider({ batchSize }, deps);
    default:
      throw new EngineError('CONFIG_INVALID', { source: 'embed.provider', reason: `unknown provider ${JSON.stringify(config.provider)}` });
  }
}

function missing(section: string): never {
  throw new EngineError('CONFIG_INVALID', { source: `embed.${section}`, reason: `provider "${section}" needs an embed.${section} section` });
}
