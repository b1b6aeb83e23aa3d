import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import * as protoLoader from '@grpc/proto-loader';
import type { BranchProtection as BranchProtectionAnswer } from '@githost/api-types';
import { LOADER_OPTIONS, type accounts } from '@githost/protos';
import { parse } from 'yaml';
import { RULE_DEFAULTS, type BranchProtection } from './index.js';

// A rule is written once, in openapi.yaml's BranchProtection schema; accounts.proto's message
// carries it on the wire and is the one other copy (docs/decisions/branch-protection-one-source.md).
// These pins fail when a field is added to one and not the other, or renamed in one.

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Fails to compile (lint) when the field names drift apart.
const protoHasTheRuleFields: Same<keyof accounts.BranchProtection__Output, keyof BranchProtection> = true;
const apiHasTheRuleFields: Same<Exclude<keyof BranchProtectionAnswer, 'created_at' | 'updated_at'>, keyof BranchProtection> = true;

/** Every field of a rule: RULE_DEFAULTS must name all but the pattern, or it would not compile. */
const RULE_FIELDS = ['pattern', ...Object.keys(RULE_DEFAULTS)].sort();

describe('BranchProtection, one rule in three places', () => {
  it('when accounts.proto is loaded, then its BranchProtection message has exactly the fields of the API rule', () => {
    const definition = protoLoader.loadSync('githost/accounts/v1/accounts.proto', LOADER_OPTIONS)['githost.accounts.v1.BranchProtection'] as unknown as { type: { field: { name: string }[] } };
    const fields = definition.type.field.map((f) => f.name);
    expect([protoHasTheRuleFields, apiHasTheRuleFields]).toEqual([true, true]);
    expect(fields.sort()).toEqual(RULE_FIELDS);
  });

  it('when openapi.yaml is read, then its BranchProtection schema has exactly the rule fields and the two timestamps', () => {
    const document = parse(readFileSync(fileURLToPath(new URL('../../../openapi/openapi.yaml', import.meta.url)), 'utf8')) as {
      components: { schemas: { BranchProtection: { properties: Record<string, unknown> } } };
    };
    expect(Object.keys(document.components.schemas.BranchProtection.properties).sort()).toEqual([...RULE_FIELDS, 'created_at', 'updated_at'].sort());
  });
});
