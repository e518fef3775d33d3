import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The `long` tier's two heaviest files, placed where they cost the least wall time. The stress
 * test of one-shot commands loads the machine for minutes (a worker, an endless ingest, four CLI
 * runs at a time): started first, the other files run beside it instead of after it. The
 * 100,000-row upload drains as fast as the machine lets it, and beside the stress test its drain
 * took longer than the test allows: it starts once a third of the other files have started, when
 * the stress test has ended or nearly so. Started last, it ran alone for most of its minute
 * while the last few files ended.
 */
const FIRST = 'test/integration/cli-stress.test.ts';
const AFTER_A_THIRD = 'test/integration/api-upload-100k.test.ts';

export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((spec) => spec.moduleId.endsWith(FIRST));
    const later = sorted.filter((spec) => spec.moduleId.endsWith(AFTER_A_THIRD));
    const rest = sorted.filter((spec) => !first.includes(spec) && !later.includes(spec));
    const third = Math.ceil(rest.length / 3);
    return [...first, ...rest.slice(0, third), ...later, ...rest.slice(third)];
  }
}
