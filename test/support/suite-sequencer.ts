import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The `long` tier's two heaviest files, placed where they cost the least wall time. The stress
 * test of one-shot commands loads the machine for minutes (a worker, an endless ingest, four CLI
 * runs at a time): started first, the other long files run beside it instead of after it. The
 * 100,000-row upload drains as fast as the machine lets it, and beside the stress test its drain
 * took longer than the test allows: it starts last, once the other long files are done, when the
 * stress test has ended or nearly so.
 */
const FIRST = 'test/integration/cli-stress.test.ts';
const LAST = 'test/integration/api-upload-100k.test.ts';

export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((spec) => spec.moduleId.endsWith(FIRST));
    const last = sorted.filter((spec) => spec.moduleId.endsWith(LAST));
    const rest = sorted.filter((spec) => !first.includes(spec) && !last.includes(spec));
    return [...first, ...rest, ...last];
  }
}
