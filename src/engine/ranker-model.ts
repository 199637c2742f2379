/**
 * The learned ranker's weights (models/ranker/weights.json, written by bench/train-ranker.ts), read
 * once per engine. A file that does not parse or lacks a feature's weight is refused with
 * MODEL_INVALID.
 */
import { createRequire } from 'node:module';
import { EngineError } from '../core/errors.js';
import { parseFileRankModel, type FileRankModel } from '../search/file-rank.js';
import { parseRankerModel, type RankerModel } from '../search/learned-rank.js';

/** From src/engine/ and from dist/engine/ alike, two levels up is the package root. */
export const RANKER_WEIGHTS = '../../models/ranker/weights.json';

export function loadRankerModel(path = RANKER_WEIGHTS): RankerModel {
  let json: unknown;
  try {
    json = createRequire(import.meta.url)(path);
  } catch (err) {
    throw new EngineError('MODEL_INVALID', { model: 'ranker', reason: `cannot read ${path}: ${(err as Error).message}` });
  }
  try {
    return parseRankerModel(json);
  } catch (err) {
    throw new EngineError('MODEL_INVALID', { model: 'ranker', reason: (err as Error).message });
  }
}

/** The learned file ranker's weights (models/ranker/file-weights.json, written by bench/train-file-ranker.ts). */
export const FILE_RANKER_WEIGHTS = '../../models/ranker/file-weights.json';

export function loadFileRankModel(path = FILE_RANKER_WEIGHTS): FileRankModel {
  let json: unknown;
  try {
    json = createRequire(import.meta.url)(path);
  } catch (err) {
    throw new EngineError('MODEL_INVALID', { model: 'file-ranker', reason: `cannot read ${path}: ${(err as Error).message}` });
  }
  try {
    return parseFileRankModel(json);
  } catch (err) {
    throw new EngineError('MODEL_INVALID', { model: 'file-ranker', reason: (err as Error).message });
  }
}
