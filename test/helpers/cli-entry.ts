// Runs the CLI from source, so that spawned-process tests never test a stale build.
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv);
