import * as z from 'zod';

/**
 * The zod schema of `scry-manifest.json` (see model-manifest.ts). In a module of its own, imported
 * when a manifest is read, so that nothing else pays for loading zod (start-up, issue 19).
 */
export function manifestSchema(format: number, isSafePath: (path: string) => boolean) {
  return z.object({
    format: z.literal(format),
    name: z.string().min(1),
    revision: z.string().min(1),
    commit: z.string().min(1),
    hubUrl: z.string(),
    pulledAt: z.string(),
    model: z.string().min(1),
    files: z.array(z.object({ path: z.string().refine(isSafePath, 'not a relative path'), size: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
  });
}
