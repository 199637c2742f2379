import { describe, expect, it } from 'vitest';
import { chunkTimestamp, fileTimestamp, latestDate } from '../../../src/indexer/content-time.js';

const LATEST = Date.UTC(2025, 0, 1);

describe('content timestamps', () => {
  it('reads dates and date-times in the common written forms, ignoring implausible ones', () => {
    expect(latestDate('shipped 2024-03-01, fixed 2024-03-05T10:30:00Z', LATEST)).toBe(Date.UTC(2024, 2, 5, 10, 30));
    expect(latestDate('at 2024-03-01 10:00 +02:00', LATEST)).toBe(Date.UTC(2024, 2, 1, 8, 0));
    expect(latestDate('version 1970-01-01 and 2031-01-01', LATEST)).toBeUndefined();
    expect(latestDate('on 2024-03-01 only', LATEST, true)).toBeUndefined();
  });

  it("takes a file's frontmatter or mail date before its mtime", () => {
    expect(fileTimestamp({ updated: '2024-06-01', date: '2023-01-01' }, 5, LATEST)).toBe(Date.UTC(2024, 5, 1));
    expect(fileTimestamp({ date: '2023-01-01T00:00:00.000Z' }, 5, LATEST)).toBe(Date.UTC(2023, 0, 1));
    expect(fileTimestamp({ title: 'x' }, Date.UTC(2024, 0, 2), LATEST)).toBe(Date.UTC(2024, 0, 2));
    expect(fileTimestamp(undefined, 0, LATEST)).toBeNull();
  });

  it("gives a chunk its heading's date (a mail message, a chat day), else a document's written time, else the file's", () => {
    const file = Date.UTC(2024, 0, 1);
    expect(chunkTimestamp({ container: 'Outage', symbol: 'Ann — 2024-03-02T09:00:00.000Z' }, 'text', true, file, LATEST)).toBe(Date.UTC(2024, 2, 2, 9));
    expect(chunkTimestamp({ symbol: 'Thread' }, '**ann** 2024-04-01 12:00 deploy done\n**bob** 2024-04-01 12:05 thanks', true, file, LATEST)).toBe(Date.UTC(2024, 3, 1, 12, 5));
    // code keeps its file's time: a date in a string literal is not when the code was written
    expect(chunkTimestamp({ symbol: 'parse' }, 'const d = "2024-04-01 12:00"', false, file, LATEST)).toBe(file);
  });
});
