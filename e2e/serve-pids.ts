/**
 * Where each `serve` the suite starts leaves its pid until it has exited (fixtures.ts): the
 * folder is made by global-setup.ts, and global-teardown.ts fails the suite if any is still running.
 */
export const SERVE_PIDS_ENV = 'MW_E2E_SERVE_PIDS';
