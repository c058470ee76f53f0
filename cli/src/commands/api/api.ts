import { Argument, Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { bodyOf, withBodyFlags, type BodyFlags } from '../resources/body.ts';
import { collect, parseSettings } from '../shared/pairs.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

export interface ApiOptions extends BodyFlags {
  method: Method;
  path: string;
  /** Query parameters, KEY=VALUE. */
  query?: string[];
  /** The messaging API instead of the content service. */
  chat?: boolean;
}

type Untyped = (path: string, init: object) => Promise<{ data: unknown }>;

/**
 * Any call of either API with the profile's credentials, as `gh api` does: the answer's body on
 * stdout (JSON as it came, or YAML with -o yaml); an error answer exits as every command does.
 */
export async function run(options: ApiOptions, f: Factory): Promise<void> {
  if (!options.path.startsWith('/'))
    throw usageError(`"${options.path}" is not a path`, 'e.g. /api/v1/users/me');
  const client = options.chat ? f.chat() : f.content();
  const withBody = options.set?.length || options.data !== undefined;
  const init = {
    ...(options.query?.length ? { params: { query: parseSettings(options.query) } } : {}),
    ...(withBody ? { body: bodyOf(options) } : {}),
  };
  const { data } = await (client[options.method] as unknown as Untyped)(options.path, init);
  if (data === undefined) return;
  if (f.printer().format === 'table') f.printer().line(JSON.stringify(data, null, 2));
  else f.printer().data(data);
}

export function apiCommand(f: Factory): Command {
  return withBodyFlags(
    new Command('api')
      .description('Call any endpoint with your credentials (as gh api)')
      .addArgument(new Argument('<method>', 'HTTP method').choices(METHODS))
      .argument('<path>', 'the path, from /api/v1/…')
      .option('--query <KEY=VALUE>', 'a query parameter (repeatable)', collect)
      .option('--chat', 'call the messaging API (its email and API key) instead of the content service'),
  ).action((method: Method, path: string, options: Omit<ApiOptions, 'method' | 'path'>) =>
    run({ ...options, method, path }, f),
  );
}
