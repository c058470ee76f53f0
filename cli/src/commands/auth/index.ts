import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { loginCommand } from './login.ts';
import { statusCommand } from './status.ts';
import { logoutCommand } from './logout.ts';
import { tokenCommand } from './token.ts';

export function authCommand(f: Factory): Command {
  return new Command('auth')
    .description('Log in to the content service, see who you are, log out')
    .addCommand(loginCommand(f))
    .addCommand(statusCommand(f))
    .addCommand(logoutCommand(f))
    .addCommand(tokenCommand(f));
}
