import { GraphRejection } from '../graph-error.js';
import { INVALID } from '../json-checks.js';
import type { TemplateShape } from './template-shape.js';

/**
 * An authentication template's one-time password (templates/authentication-templates/
 * copy-code-button-authentication-templates, for copy-code, one-tap and zero-tap alike): the
 * body's variable and the URL button's parameter carry it, "this value must appear twice in the
 * payload", "Maximum 15 characters". That both are there is checked with the body and buttons
 * (132000, 131008); here, that they agree. Meta's pages give no code for a mismatch: the
 * sandbox answers 100, its answer for a parameter that breaks a documented rule.
 */
export const MAX_OTP = 15;

export function checkOtp(otp: TemplateShape['otp'], body: ReadonlyMap<string, string>, buttons: ReadonlyMap<number, string>): void {
  if (otp === undefined) return;
  const code = body.get(otp.bodyVariable);
  const again = buttons.get(otp.button);
  if (code !== undefined && code.length > MAX_OTP) {
    throw new GraphRejection(INVALID, `body: the one-time password has ${code.length} characters; the maximum is ${MAX_OTP}`);
  }
  if (code !== undefined && again !== undefined && code !== again) {
    throw new GraphRejection(
      INVALID,
      `buttons: the one-time password must appear twice, the same: body {{${otp.bodyVariable}}} and button ${otp.button} differ`,
    );
  }
}
