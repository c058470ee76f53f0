import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import type { Config } from '@muse/core';
import { listProviders, createProvider } from '../code-providers/store.ts';
import { readPaymentApi, updatePaymentApi } from '../admin/payment-api.ts';
import { BOOTSTRAP_SECTIONS, type BootstrapContext } from './sections.ts';

export class BootstrapError extends Error {
  override name = 'BootstrapError';
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function compileFileSchema() {
  const properties = Object.fromEntries(
    Object.entries(BOOTSTRAP_SECTIONS).map(([name, section]) => [name, section.schema()]),
  );
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  return ajv.compile({ type: 'object', properties, additionalProperties: false });
}

/** Parses and validates a bootstrap document; the error names the file and each bad path. */
export function parseBootstrap(text: string, file: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = parse(text) ?? {};
  } catch (error) {
    throw new BootstrapError(`${file} is not valid YAML: ${(error as Error).message}`);
  }
  const validate = compileFileSchema();
  if (!validate(document)) {
    const problems = (validate.errors ?? []).map(
      (e) =>
        `  ${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    );
    throw new BootstrapError(`${file} is not a valid bootstrap file:\n${problems.join('\n')}`);
  }
  return document as Record<string, unknown>;
}

/** Applies every section of the file in the order of BOOTSTRAP_SECTIONS; safe to run at every start. */
export async function applyBootstrapFile(context: BootstrapContext, file: string): Promise<void> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new BootstrapError(`Cannot read the bootstrap file ${file}: ${error.message}`);
  });
  const document = parseBootstrap(text, file);
  for (const [name, section] of Object.entries(BOOTSTRAP_SECTIONS)) {
    if (document[name] === undefined) continue;
    try {
      await section.apply(context, document[name] as never);
    } catch (error) {
      throw new BootstrapError(
        `${file}: section ${name} failed: ${(error as Error).message}${detailsOf(error)}`,
      );
    }
  }
  context.logger.info({ file }, 'bootstrap file applied');
}

function detailsOf(error: unknown): string {
  const details = (error as { details?: unknown }).details;
  return details ? ` ${JSON.stringify(details)}` : '';
}

/**
 * What the content API does before it serves: apply MUSE_BOOTSTRAP_FILE when set, and in
 * development, when no code provider exists at all, add an enabled `log` provider so that a
 * fresh `npm start` can log in by reading the code in the server log; when no payment provider
 * is configured, enable the `development` one so that a top-up can be completed offline.
 */
export async function prepareContentService(context: BootstrapContext, config: Config): Promise<void> {
  if (config.MUSE_BOOTSTRAP_FILE) await applyBootstrapFile(context, config.MUSE_BOOTSTRAP_FILE);
  if (config.NODE_ENV === 'development' && (await listProviders(context.db)).length === 0) {
    await createProvider(context.db, context.secrets, {
      name: 'development log',
      type: 'log',
      priority: 1000,
    }).catch(() => undefined);
    context.logger.warn('development: added a "log" code provider; login codes are printed in this log');
  }
  if (config.NODE_ENV === 'development' && (await readPaymentApi(context.db)).provider === 'none') {
    await updatePaymentApi(context.db, context.secrets, { provider: 'development', enabled: true });
    context.logger.warn('development: top-ups use the "development" payment provider (no money moves)');
  }
}
