import { printableBlock } from '../../text/operator-text.js';

/**
 * A cell we write to a CSV, neutralised against formula injection as OWASP recommends
 * ("CSV Injection"): a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return
 * gets a leading `'`, so Excel and LibreOffice show it as text instead of evaluating it
 * (`=HYPERLINK(…)`, `+cmd|' /C calc'!A0`). csv-stringify then quotes it as needed.
 * A plain signed integer such as an E.164 number (`+4915112345678`) is left alone: it cannot
 * be a formula, and operators read phone numbers in reports. Control and bidi characters (a
 * Meta error message, a reply) are written as escapes (src/text/operator-text.ts): a report
 * printed in a terminal or opened in an editor shows them instead of acting on them.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?[0-9]+$/;

export function spreadsheetSafe(cell: string): string {
  const shown = printableBlock(cell);
  return FORMULA_START.test(shown) && !PLAIN_NUMBER.test(shown) ? `'${shown}` : shown;
}
