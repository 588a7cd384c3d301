import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * `npm run test:how-to-add`: only the scratch-copy test (tests/how-to-add), which the main suite
 * leaves out because it runs the unit suite a second time, in the copy.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['tests/how-to-add/**/*.test.ts'],
    exclude: configDefaults.exclude,
  },
});
