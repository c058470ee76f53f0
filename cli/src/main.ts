#!/usr/bin/env node
import { runCli } from './cli.ts';
import { createFactory } from './factory.ts';

process.exitCode = await runCli(process.argv.slice(2), createFactory());
