#!/usr/bin/env node
// The `campaign` command. The sources are TypeScript run through tsx's loader, so a fresh
// clone works after `npm install` with no build step and no stale output to go wrong.
import { register } from 'tsx/esm/api';

register();
await import('../workers/cli.ts');
