import type { IndexProgress } from '../index.js';
import type { CliIO } from './io.js';

/**
 * A files/s + ETA bar on stderr, only when stdout and stderr are terminals; silent otherwise.
 * The bar library is loaded only then, to keep `scry search` start-up short.
 */
export async function progressBar(io: CliIO): Promise<{ onProgress: (e: IndexProgress) => void; stop: () => void }> {
  if (!io.stdoutIsTTY || !io.stderrIsTTY || !io.stderrStream) return { onProgress: () => {}, stop: () => {} };
  const { default: cliProgress } = await import('cli-progress');
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      stream: io.stderrStream,
      format: 'indexing |{bar}| {percentage}% · {value}/{total} files · {rate} files/s · {mbps} MB/s · ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let started_ = false;
  return {
    onProgress: (e) => {
      if (e.phase !== 'index' || e.filesTotal === 0) return;
      const secs = Math.max(0.001, (Date.now() - started) / 1000);
      const payload = { rate: Math.round(e.filesDone / secs), mbps: (e.bytesDone / 1024 / 1024 / secs).toFixed(1) };
      if (!started_) {
        bar.start(e.filesTotal, e.filesDone, payload);
        started_ = true;
      } else bar.update(e.filesDone, payload);
    },
    stop: () => {
      if (started_) bar.stop();
    },
  };
}
