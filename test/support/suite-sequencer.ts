import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's two heaviest files, placed where they cost the least wall time. The stress test
 * of one-shot commands loads the machine for minutes (a worker, an endless ingest, four CLI
 * runs at a time): started first, it runs beside the ordinary files instead of alone at the
 * end. The 100,000-row upload drains as fast as the machine lets it, and beside the stress test
 * its drain took longer than the test allows: it starts three quarters of the way through the
 * other files, long after the stress test has ended (it ends about two fifths into the run), and
 * still shares the last part of the run with them instead of running alone at its end.
 */
const FIRST = 'test/integration/cli-stress.test.ts';
const LATE = 'test/integration/api-upload-100k.test.ts';
const LATE_AT = 0.75;

export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((spec) => spec.moduleId.endsWith(FIRST));
    const late = sorted.filter((spec) => spec.moduleId.endsWith(LATE));
    const rest = sorted.filter((spec) => !first.includes(spec) && !late.includes(spec));
    // Among the integration files: the unit files come after them (BaseSequencer orders by project) and take seconds.
    const integration = rest.filter((spec) => spec.project.name === 'integration').length;
    const at = Math.round(integration * LATE_AT);
    return [...first, ...rest.slice(0, at), ...late, ...rest.slice(at)];
  }
}
