import { basename } from 'node:path';
import { MAX_NAME_CHARS, nameOfFile } from '../campaigns/campaign-name.js';
import type { CheckedSpec } from '../campaigns/spec/check-spec.js';
import type { FieldNames } from '../campaigns/spec/field-names.js';
import { writeTestSendFile } from './test-send-file.js';

/**
 * `--test-to`: the test campaign's spec and file. The first rows go to the test numbers, marked as
 * a test (its definition's `test`): outside the duplicate window (a test is sent again as often as
 * the team likes) and FREQUENCY_CAPS (neither checked nor counted), named so nobody takes it for
 * the real send.
 */
export async function testSendSpec(
  spec: CheckedSpec,
  file: string,
  names: FieldNames,
  dir: string,
): Promise<{ spec: CheckedSpec; file: string }> {
  const testTo = spec.testTo ?? [];
  const written = await writeTestSendFile({ file, delimiter: spec.delimiter, phoneColumn: spec.phoneColumn }, testTo, {
    dir,
    testToName: names.testTo,
  });
  const name = `TEST: ${spec.name ?? nameOfFile(file) ?? basename(file)}`;
  return {
    // The team's own phones: sent now, whatever their local hour (no send window).
    spec: {
      ...spec,
      name: Array.from(name).slice(0, MAX_NAME_CHARS).join(''),
      allowRepeat: true,
      window: undefined,
      timezoneColumn: undefined,
    },
    file: written,
  };
}
