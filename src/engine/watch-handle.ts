import type { IndexKeeper } from '../freshness/keeper.js';
import type { IndexWatch } from './engine-api.js';

/** The caller's handle on a started keeper; `onClosed` runs after the keeper has stopped. */
export function watchHandle(keeper: IndexKeeper, onClosed: () => void): IndexWatch {
  return {
    get role() {
      return keeper.role;
    },
    freshness: () => keeper.freshness(),
    ready: (o) => keeper.ready(o),
    idle: () => keeper.idle(),
    close: async () => {
      await keeper.close();
      onClosed();
    },
  };
}
