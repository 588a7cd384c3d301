import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { READ_METHODS } from './runs/queries';
import { RUN_WRITE_METHODS } from './runs/handlers';
import { createService, type Service } from './service';

/**
 * The runs domain's handlers come from one list each (READ_METHODS, RUN_WRITE_METHODS): a read
 * view added to runs/queries.ts is served by both transports without touching the service.
 */
describe('service runs handlers', () => {
  let dir: string;
  let service: Service;
  afterEach(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([0, 1])(
    'serves every read method as objects and as JSON bytes (%i read workers)',
    async (readWorkers) => {
      dir = mkdtempSync(join(tmpdir(), 'mw-service-handlers-'));
      service = createService({ dataDir: dir, transport: 'http', readWorkers });
      for (const method of [...READ_METHODS, ...RUN_WRITE_METHODS]) {
        expect(service.handlers[method], method).toBeTypeOf('function');
      }
      for (const method of READ_METHODS) {
        expect(service.serialized[method], method).toBeTypeOf('function');
      }
      const bytes = await service.serialized['sweeps.list']?.({});
      expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(
        await service.handlers['sweeps.list']({}),
      );
    },
  );
});
