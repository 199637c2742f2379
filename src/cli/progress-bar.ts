import type { IndexProgress } from '../index.js';
import type { CliIO } from './io.js';

/** Erases the current terminal line (the walk's counter) before the bar takes it over. */
const CLEAR_LINE = '\r\x1b[2K';

/**
 * Progress on stderr, only when stdout and stderr are terminals; silent otherwise. First the walk:
 * `scanning: N files found` (a large tree takes tens of seconds, and the total is not known
 * until it ends), then a files/s + ETA bar moving file by file (issue 24: it sat at `0% · ETA 0s`
 * during the walk, then jumped in 500-file batches). The bar library is loaded only for a
 * terminal, to keep `scry search` start-up short.
 */
export async function progressBar(io: CliIO): Promise<{ onProgress: (e: IndexProgress) => void; stop: () => void }> {
  const stream = io.stderrStream;
  if (!io.stdoutIsTTY || !io.stderrIsTTY || !stream) return { onProgress: () => {}, stop: () => {} };
  const { default: cliProgress } = await import('cli-progress');
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'indexing |{bar}| {percentage}% · {value}/{total} files · {rate} files/s · {mbps} MB/s · ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let scanning = false;
  let barStarted = false;
  return {
    onProgress: (e) => {
      if (e.phase === 'scan') {
        if (e.filesDone === 0) return;
        stream.write(`${CLEAR_LINE}scanning: ${e.filesDone.toLocaleString('en-US')} files found`);
        scanning = true;
        return;
      }
      if (e.phase !== 'index' || e.filesTotal === 0) return;
      if (scanning) stream.write(CLEAR_LINE);
      scanning = false;
      const secs = Math.max(0.001, (Date.now() - started) / 1000);
      const payload = { rate: Math.round(e.filesDone / secs), mbps: (e.bytesDone / 1024 / 1024 / secs).toFixed(1) };
      if (!barStarted) {
        bar.start(e.filesTotal, e.filesDone, payload);
        barStarted = true;
      } else bar.update(e.filesDone, payload);
    },
    stop: () => {
      if (scanning) stream.write(CLEAR_LINE);
      scanning = false;
      if (barStarted) bar.stop();
      barStarted = false;
    },
  };
}
