/**
 * The launcher's one test seam (issue 34). Every surface starts or resumes a run through
 * `launchRun`/`resumeRun` (launch.ts), which add the launch policy: estimate, preflight, the
 * response cache default and its repeat scope. Tests of the pipeline itself, and the benchmark
 * scripts that time it, need the run without that policy (a preflight call would change the call
 * counts they assert, the cache default would change what they measure) and with the pipeline's
 * own options (`RunOptions`: executors, worker factories, clocks). They call these, and nothing
 * else does: eslint.config.js lets only core/launch import `startExperiment`/`resumeExperiment`.
 */
export {
  startExperiment as startRunBypassingLauncher,
  resumeExperiment as resumeRunBypassingLauncher,
} from '../pipeline/runner';
