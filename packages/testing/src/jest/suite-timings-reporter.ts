import type { Reporter, Test, TestResult } from '@jest/reporters';
import { readPlatformStarts, runSummary, suiteName, writeLaneTimings, type SuiteTiming } from './suite-timings';

/**
 * A jest reporter beside the default one: records every suite's wall time in
 * test-results/suite-timings-<lane>.json. Run alone (`npm run test:jest`, or `npm test` with
 * arguments) it prints the slowest suites at the end; in lanes the runner prints them for all.
 */
class SuiteTimingsReporter implements Pick<Reporter, 'onTestStart' | 'onTestResult' | 'onRunComplete'> {
  private readonly suites: SuiteTiming[] = [];
  private readonly lane = process.env.TEST_LANE || 'all';
  /** This process's CPU at each running suite's start: in band (one worker) the suite runs here. */
  private readonly cpuAtStart = new Map<string, NodeJS.CpuUsage>();

  onTestStart(test: Test): void {
    this.cpuAtStart.set(test.path, process.cpuUsage());
  }

  onTestResult(test: Test, result: TestResult): void {
    const { start, end } = result.perfStats;
    const cpuAtStart = this.cpuAtStart.get(test.path);
    this.cpuAtStart.delete(test.path);
    const cpu = cpuAtStart && this.cpuAtStart.size === 0 ? process.cpuUsage(cpuAtStart) : undefined;
    this.suites.push({
      suite: suiteName(test.path),
      seconds: Math.max(0, end - start) / 1000,
      tests: result.numPassingTests + result.numFailingTests + result.numPendingTests + result.numTodoTests,
      failed: result.numFailingTests + (result.testExecError ? 1 : 0),
      lane: process.env.TEST_LANE,
      slowestTests: result.testResults
        .map((t) => ({ name: t.fullName, seconds: (t.duration ?? 0) / 1000 }))
        .sort((a, b) => b.seconds - a.seconds)
        .slice(0, 5),
      jestCpuSeconds: cpu && (cpu.user + cpu.system) / 1e6,
    });
  }

  onRunComplete(): void {
    writeLaneTimings(this.lane, this.suites);
    if (!process.env.TEST_LANE) {
      for (const line of runSummary(this.suites, readPlatformStarts())) process.stdout.write(`${line}\n`);
    }
  }
}

export = SuiteTimingsReporter;
