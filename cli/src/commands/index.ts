import type { Command } from 'commander';
import type { Factory } from '../factory.ts';
import { authCommand } from './auth/index.ts';
import { profileCommand } from './profile/index.ts';
import { meCommand } from './me/me.ts';
import { generateCommand } from './generate/index.ts';
import { filesCommand } from './files/index.ts';
import { transactionsCommand } from './transactions/index.ts';
import { creditsCommand } from './credits/index.ts';
import { paymentsCommand } from './payments/index.ts';
import { bundlesCommand } from './bundles/index.ts';
import { resourcesCommand } from './resources/index.ts';
import { configCommand } from './config/index.ts';
import { providersCommand } from './providers/index.ts';
import { paymentApiCommand } from './payment-api/index.ts';
import { usersCommand } from './users/index.ts';
import { generatorsCommand } from './generators/index.ts';
import { chatCommand } from './chat/index.ts';
import { completionCommand } from './completion/completion.ts';
import { apiCommand } from './api/api.ts';

/** The nouns of `muse`, in the order `muse --help` lists them: users' first, then administration. */
export function nounCommands(f: Factory): Command[] {
  return [
    authCommand(f),
    profileCommand(f),
    meCommand(f),
    generateCommand(f),
    filesCommand(f),
    transactionsCommand(f),
    creditsCommand(f),
    paymentsCommand(f),
    bundlesCommand(f),
    resourcesCommand(f),
    generatorsCommand(f),
    usersCommand(f),
    configCommand(f),
    providersCommand(f),
    paymentApiCommand(f),
    chatCommand(f),
    apiCommand(f),
    completionCommand(f),
  ];
}
