import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The `long` tier's two heaviest files, placed where they cost the least wall time. The stress
 * test of one-shot commands loads the machine for minutes (a worker, an endless ingest, four CLI
 * runs at a time): started first, the other files run beside it instead of after it. The
 * 100,000-row upload drains as fast as the machine lets it, and beside the stress test its drain
 * took longer than the test allows. In a run of the long tier alone (`npm run test:stress`, the
 * stress test's 500 runs) it starts last, once the other long files are done. In a run with the
 * other tiers (CI's, the stress test's 50 runs) it starts once a third of the other files have
 * started, when the stress test has long ended: started last there, it ran alone for most of its
 * minute while the last few files ended.
 */
const FIRST = 'test/integration/cli-stress.test.ts';
const UPLOAD = 'test/integration/api-upload-100k.test.ts';

export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((spec) => spec.moduleId.endsWith(FIRST));
    const upload = sorted.filter((spec) => spec.moduleId.endsWith(UPLOAD));
    const rest = sorted.filter((spec) => !first.includes(spec) && !upload.includes(spec));
    const withIntegration = rest.some((spec) => spec.project.name === 'integration');
    const at = withIntegration ? Math.ceil(rest.length / 3) : rest.length;
    return [...first, ...rest.slice(0, at), ...upload, ...rest.slice(at)];
  }
}
