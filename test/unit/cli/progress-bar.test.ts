import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressBar } from '../../../src/cli/progress-bar.js';
import type { CliIO } from '../../../src/cli/io.js';
import type { IndexProgress } from '../../../src/index.js';

/** A terminal-like stderr that records what is drawn on it. */
function terminal(): { io: CliIO; drawn: () => string } {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _enc, done) {
        text += chunk.toString();
        done();
      },
    }),
    { isTTY: true, columns: 160 },
  );
  const io: CliIO = { out: () => {}, err: (s) => void stream.write(s), stdoutIsTTY: true, stderrIsTTY: true, stderrStream: stream, cwd: '/', readStdin: async () => '' };
  return { io, drawn: () => text };
}

const scan = (filesDone: number): IndexProgress => ({ phase: 'scan', filesDone, filesTotal: 0, bytesDone: 0, bytesTotal: 0 });
const index = (filesDone: number, filesTotal: number): IndexProgress => ({ phase: 'index', filesDone, filesTotal, bytesDone: filesDone * 100, bytesTotal: filesTotal * 100 });

describe('the CLI progress bar (issue 24)', () => {
  it('shows the walk (files found so far), clears it, then draws the bar', async () => {
    const { io, drawn } = terminal();
    const bar = await progressBar(io);
    bar.onProgress(scan(0));
    bar.onProgress(scan(200));
    bar.onProgress(scan(400));
    const walked = drawn();
    expect(walked).toContain('scanning: 200 files found');
    expect(walked).toContain('scanning: 400 files found');
    expect(walked).not.toContain('indexing |');
    bar.onProgress(index(0, 450));
    bar.onProgress(index(1, 450));
    const drawing = drawn().slice(walked.length);
    expect(drawing.startsWith('\r\x1b[2K')).toBe(true);
    expect(drawing).toMatch(/indexing \|.*\| 0% · 0\/450 files/);
    bar.stop();
  });

  it('draws nothing when stdout or stderr is not a terminal', async () => {
    const { io, drawn } = terminal();
    const bar = await progressBar({ ...io, stdoutIsTTY: false });
    bar.onProgress(scan(200));
    bar.onProgress(index(0, 10));
    bar.stop();
    expect(drawn()).toBe('');
  });
});
