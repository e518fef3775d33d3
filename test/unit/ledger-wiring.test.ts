import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { numberScope } from '../../src/redis/key-scope.js';
import { LUA_DIR, readLuaHeader, type LuaHeader } from '../../src/redis/lua-scripts.js';
import { campaignLedgerKeys, marketingCapKeys, numberOptOutKeys, wamidsKey } from '../../src/redis/ledger/ledger-keys.js';
import { portfolioOptOutKeys } from '../../src/redis/ledger/ledger-optouts.js';
import { LEDGER_SCRIPTS, type LedgerCommands } from '../../src/redis/ledger/ledger-scripts.js';
import {
  brakeKeys,
  cancelKeys,
  claimKeys,
  confirmInDoubtKeys,
  retryCappedKeys,
  feedScriptKeys,
  groupDoneKeys,
  markForRetryKeys,
  optOutCopyKeys,
  priorSendsKeys,
  reachCommitKeys,
  reachReserveKeys,
  recordIngestedKeys,
  recordMarketingCapKeys,
  rowSendKeys,
  settleKeys,
} from '../../src/redis/ledger/script-keys.js';
import { portfolioMarketingCapsKey, portfolioScope } from '../../src/redis/pacer/portfolio-keys.js';

/**
 * The ledger's wiring is read from its scripts' headers (src/redis/lua/README.md, "Header").
 * For every script of src/redis/lua: its command in LEDGER_SCRIPTS, and that command's
 * signature in LedgerCommands (read from the source, as written) takes the header's KEYS and
 * then its ARGV, by the same names and in the same order, optional where the header says so,
 * the arguments repeated per item as `Each<[…]>`; and the key list its calls spread comes from
 * a function of script-keys.ts that builds, in that order, the keys the header documents.
 */

const luaDir = fileURLToPath(LUA_DIR);
const SCRIPTS_TS = fileURLToPath(new URL('../../src/redis/ledger/ledger-scripts.ts', import.meta.url));
const scripts = readdirSync(luaDir)
  .filter((file) => file.endsWith('.lua'))
  .map((file) => file.slice(0, -'.lua'.length))
  .sort();
const headerOf = (script: string): LuaHeader => readLuaHeader(readFileSync(join(luaDir, `${script}.lua`), 'utf8'), `${script}.lua`);
const commandOf = (script: string): keyof LedgerCommands | undefined =>
  (Object.keys(LEDGER_SCRIPTS) as (keyof LedgerCommands)[]).find((command) => LEDGER_SCRIPTS[command] === script);

/** A header's name as TypeScript spells it: `campaign-id` → `campaignId`. */
const camel = (name: string): string => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

interface Parameter {
  name: string;
  type: string;
  optional: boolean;
  /** For `...name: Each<[a: …, b: …]>`: the labels a, b. */
  each?: string[];
}

/** LedgerCommands' signatures as written in `source`: command → its parameters. */
function signatures(source: string): Map<string, Parameter[]> {
  const file = ts.createSourceFile('ledger-scripts.ts', source, ts.ScriptTarget.Latest, true);
  const commands = file.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'LedgerCommands',
  );
  const found = new Map<string, Parameter[]>();
  for (const member of commands?.members ?? []) {
    if (!ts.isMethodSignature(member)) continue;
    found.set(
      member.name.getText(file),
      member.parameters.map((p) => {
        const parameter: Parameter = {
          name: p.name.getText(file),
          type: p.type?.getText(file) ?? '',
          optional: p.questionToken !== undefined,
        };
        if (p.dotDotDotToken === undefined) return parameter;
        const item =
          p.type !== undefined && ts.isTypeReferenceNode(p.type) && p.type.typeName.getText(file) === 'Each'
            ? p.type.typeArguments?.[0]
            : undefined;
        const labels =
          item !== undefined && ts.isTupleTypeNode(item) ? item.elements.map((e) => (ts.isNamedTupleMember(e) ? e.name.text : '?')) : ['?'];
        return { ...parameter, each: labels };
      }),
    );
  }
  return found;
}

/** Where a command's signature and its script's header disagree, in words (none: they agree). */
function mismatches(header: LuaHeader, parameters: readonly Parameter[]): string[] {
  const problems: string[] = [];
  const rest = parameters.at(-1)?.each === undefined ? undefined : parameters.at(-1);
  const fixed = rest === undefined ? parameters : parameters.slice(0, -1);
  const shared = header.repeated === undefined ? header.argv : header.argv.slice(0, header.repeated.from - 1);
  const expected = [
    ...header.keys.map((key) => `${camel(key.name)}: string`),
    ...shared.map((arg) => `${camel(arg.name)}${arg.optional ? '?' : ''}`),
  ];
  const written = fixed.map((p, i) => (i < header.keys.length ? `${p.name}: ${p.type}` : `${p.name}${p.optional ? '?' : ''}`));
  if (written.join(', ') !== expected.join(', ')) problems.push(`takes (${written.join(', ')}); its header says (${expected.join(', ')})`);
  const repeated = header.repeated === undefined ? undefined : header.argv.slice(header.repeated.from - 1).map((arg) => camel(arg.name));
  if (header.repeated !== undefined && repeated?.length !== header.repeated.width) {
    problems.push(`its header lists ${repeated?.length} ARGV per item after saying ${header.repeated.width}`);
  }
  if ((rest?.each ?? []).join(', ') !== (repeated ?? []).join(', ')) {
    problems.push(`repeats (${(rest?.each ?? []).join(', ')}) per item; its header says (${(repeated ?? []).join(', ')})`);
  }
  return problems;
}

const PREFIX = 'cw';
const NUMBER = '106540352242922';
const CAMPAIGN = 'c1';
const PORTFOLIO = 'acme';
/** A record-ingested.lua call's own token. */
const TOKEN = 'f00dfeed';
const campaign = campaignLedgerKeys(PREFIX, NUMBER, CAMPAIGN).campaign;
const wamids = wamidsKey(PREFIX, NUMBER);

/** The KEYS each command's calls spread, from the functions the calls use; more than one list where a script runs on copies. */
const KEY_LISTS: { [Command in keyof LedgerCommands]: (readonly string[])[] } = {
  cwRecordIngested: [recordIngestedKeys(PREFIX, NUMBER, CAMPAIGN, TOKEN)],
  cwPriorSends: [priorSendsKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwIngestInterrupted: [[campaign]],
  cwLiftIngestPause: [brakeKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwFinishIngest: [[campaign]],
  cwClaim: [claimKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwSettle: [settleKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwConfirmInDoubt: [confirmInDoubtKeys(PREFIX, NUMBER)],
  cwRetryCapped: [retryCappedKeys(PREFIX, NUMBER)],
  cwHalt: [rowSendKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwPause: [[campaign]],
  cwResume: [brakeKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwTemplateStatus: [brakeKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwTemplateCategory: [[campaign]],
  cwCancel: [cancelKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwMarkForRetry: [markForRetryKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwFeed: [feedScriptKeys(PREFIX, NUMBER)],
  cwGroupDone: [groupDoneKeys(PREFIX, NUMBER)],
  cwReachReserve: [reachReserveKeys(PREFIX, PORTFOLIO)],
  cwReachCommit: [reachCommitKeys(PREFIX, PORTFOLIO)],
  cwReschedule: [[campaign]],
  cwApplyStatuses: [[wamids]],
  cwApplyInbound: [[wamids]],
  cwApplyOptOuts: [optOutCopyKeys(numberOptOutKeys(PREFIX, NUMBER)), optOutCopyKeys(portfolioOptOutKeys(PREFIX, PORTFOLIO))],
  cwApplyMarketingCaps: [[marketingCapKeys(PREFIX, NUMBER).caps], [portfolioMarketingCapsKey(PREFIX, PORTFOLIO)]],
  cwRecordMarketingCap: [recordMarketingCapKeys(PREFIX, NUMBER, CAMPAIGN)],
  cwForgetWamids: [[wamids]],
  cwWhereWamids: [[wamids]],
};

/** The keys a header's KEYS line documents (`<scope>:sent:<number> or …`), named for the sample number, campaign, portfolio and token. */
function documentedKeys(documented: string): string[] {
  return documented
    .split(' or ')
    .map((key) =>
      key
        .replaceAll('<portfolio scope>', portfolioScope(PREFIX, PORTFOLIO))
        .replaceAll('<scope>', numberScope(PREFIX, NUMBER))
        .replaceAll('<number>', NUMBER)
        .replaceAll('<id>', CAMPAIGN)
        .replaceAll('<token>', TOKEN),
    );
}

describe('the ledger’s wiring, read from its scripts’ headers', () => {
  const written = signatures(readFileSync(SCRIPTS_TS, 'utf8'));

  it('every script is one command with a signature, and every command runs a script', () => {
    expect(scripts.length).toBeGreaterThan(20);
    for (const script of scripts) expect(written.has(commandOf(script) ?? ''), `${script}.lua's command in LedgerCommands`).toBe(true);
    expect([...written.keys()].sort()).toEqual(Object.keys(LEDGER_SCRIPTS).sort());
  });

  it.each(scripts)('%s.lua: its command takes its KEYS, then its ARGV, by its header’s names and in its order', (script) => {
    const header = headerOf(script);
    expect(
      header.argv.every((arg) => /^[a-z][a-z0-9-]*$/.test(arg.name)),
      `ARGV names in ${script}.lua`,
    ).toBe(true);
    expect(mismatches(header, written.get(commandOf(script) ?? '') ?? []).join('\n')).toBe('');
  });

  it.each(scripts)('%s.lua: its calls spread the keys its header documents, in its order', (script) => {
    const { keys } = headerOf(script);
    const command = commandOf(script);
    expect(command).toBeDefined();
    for (const list of command === undefined ? [] : KEY_LISTS[command]) {
      expect(list, `${script}.lua: ${keys.map((k) => k.name).join(', ')}`).toHaveLength(keys.length);
      list.forEach((key, i) => expect(documentedKeys(keys[i]?.key ?? ''), `${script}.lua KEYS[${i + 1}] ${keys[i]?.name}`).toContain(key));
    }
  });

  it('sees a header and a signature disagree: a key renamed or moved, an argument missing, optional or repeated differently', () => {
    const parameters = written.get('cwClaim') ?? [];
    const header = headerOf('claim');
    expect(mismatches(header, parameters)).toEqual([]);
    const [first, second, ...keys] = header.keys;
    const moved = { ...header, keys: [second, first, ...keys].filter((k) => k !== undefined) };
    expect(mismatches(moved, parameters)).toHaveLength(1);
    expect(mismatches({ ...header, argv: header.argv.slice(1) }, parameters).length).toBeGreaterThan(0);
    expect(mismatches({ ...header, argv: header.argv.map((a, i) => (i === 1 ? { ...a, optional: true } : a)) }, parameters)).toHaveLength(
      1,
    );
    expect(mismatches({ ...header, repeated: { from: 4, width: 2 } }, parameters)).toHaveLength(1);
    expect(mismatches({ ...header, repeated: undefined }, parameters).length).toBeGreaterThan(0);
  });

  it('reads names, optional arguments and the repeated ones from a header', () => {
    const header = readLuaHeader(
      [
        '#!lua',
        '--[[',
        '  Input:',
        '    KEYS[1] campaign   hash     <scope>:campaign:<id> (a note)',
        '    KEYS[2] sent-at    zset     <scope>:sent-at:<number>',
        '',
        '    ARGV[1] clock      ms added to Redis TIME',
        '    ARGV[2] most-rows  optional: at most this many',
        '    then 2 per row, from ARGV[3] on:',
        '    ARGV[3] row        row number',
        '    ARGV[4] job        its job number',
        '  Output: 1',
        ']]',
        'return 1',
      ].join('\n'),
      'sample.lua',
    );
    expect(header).toEqual({
      keys: [
        { name: 'campaign', key: '<scope>:campaign:<id>' },
        { name: 'sent-at', key: '<scope>:sent-at:<number>' },
      ],
      argv: [
        { name: 'clock', optional: false },
        { name: 'most-rows', optional: true },
        { name: 'row', optional: false },
        { name: 'job', optional: false },
      ],
      repeated: { from: 3, width: 2 },
    });
  });
});
