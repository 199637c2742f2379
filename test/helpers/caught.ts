import { expect } from 'vitest';
import { EngineError } from '../../src/core/errors.js';

/** The EngineError `fn` throws (fails the test when it throws something else or nothing). */
export function caught(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error('expected an EngineError');
}
