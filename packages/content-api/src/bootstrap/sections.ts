import { ConflictError, ValidationError, type Logger, type SecretBox, type Sequelize } from '@muse/core';
import { contentOpenApiDocument } from '../openapi.ts';
import { updateServerSettings, type ServerSettings } from '../server-config/server-config.ts';
import {
  createProvider,
  listProviders,
  updateProvider,
  type ProviderInput,
} from '../code-providers/store.ts';
import { MAINLAND_MOBILE, maskPhone } from '../login/phone.ts';
import { grantAdministrator } from './admins.ts';
import { upsertGenerator, type GeneratorSpec } from '../generators/generators.ts';

export interface BootstrapContext {
  db: Sequelize;
  logger: Logger;
  secrets: SecretBox;
}

/**
 * One named top-level section of the bootstrap file: its JSON Schema (read from the API document
 * when a file is checked, not at import) and an idempotent apply function (running it twice
 * leaves the same state as once). Other areas add their sections
 * (e.g. `generators`, `bundles`) to BOOTSTRAP_SECTIONS.
 */
export interface BootstrapSection<T = unknown> {
  schema(): Record<string, unknown>;
  apply(context: BootstrapContext, value: T): Promise<void>;
}

/** Declared numbers become administrators; numbers not listed keep whatever they have. */
const admins: BootstrapSection<string[]> = {
  schema: () => ({
    type: 'array',
    items: { type: 'string', pattern: MAINLAND_MOBILE.source },
    uniqueItems: true,
  }),
  async apply({ db, logger }, phones) {
    for (const phone of phones) {
      const { changed } = await grantAdministrator(db, phone);
      if (changed) logger.info({ phone: maskPhone(phone) }, 'bootstrap: administrator granted');
    }
  },
};

/** Providers are matched by name: created when missing, otherwise updated to the declared values. */
const codeProviders: BootstrapSection<ProviderInput[]> = {
  schema: () => ({ type: 'array', items: componentSchema('CodeProviderCreate') }),
  async apply({ db, logger, secrets }, providers) {
    for (const provider of providers) {
      const existing = (await listProviders(db)).find((row) => row.name === provider.name);
      if (existing && existing.type !== provider.type) {
        throw new Error(
          `bootstrap: provider "${provider.name}" exists with type ${existing.type}, not ${provider.type}`,
        );
      }
      const changes = {
        enabled: provider.enabled ?? true,
        priority: provider.priority ?? 100,
        config: provider.config ?? {},
        secrets: provider.secrets ?? {},
      };
      if (existing) {
        await updateProvider(db, secrets, existing.id, changes);
        continue;
      }
      try {
        await createProvider(db, secrets, provider);
        logger.info({ provider: provider.name }, 'bootstrap: code provider created');
      } catch (error) {
        // Another API process applying the same file created it first.
        if (!(error instanceof ConflictError)) throw error;
      }
    }
  },
};

/** Generators are matched by name: created when missing, otherwise updated (secrets merged). */
const generators: BootstrapSection<GeneratorSpec[]> = {
  schema: () => ({ type: 'array', items: componentSchema('GeneratorInput') }),
  async apply({ db, logger, secrets }, specs) {
    for (const spec of specs) {
      const generator = await upsertGenerator(db, secrets, spec);
      logger.info({ generator: generator.name, id: generator.id }, 'bootstrap: generator applied');
    }
  },
};

const serverConfig: BootstrapSection<Partial<ServerSettings>> = {
  schema: () => componentSchema('ServerConfigUpdate'),
  async apply({ db }, settings) {
    await updateServerSettings(db, settings);
  },
};

/** Applied in this order: settings first, so accounts the file creates get the declared credit quota. */
export const BOOTSTRAP_SECTIONS: Record<string, BootstrapSection<never>> = {
  server_config: serverConfig,
  admins,
  code_providers: codeProviders,
  generators,
};

/** A schema of the API document (references inlined), so the file accepts exactly what the API accepts. */
function componentSchema(name: string): Record<string, unknown> {
  const schemas = contentOpenApiDocument().components.schemas as Record<string, Record<string, unknown>>;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: string }).$ref;
    if (ref?.startsWith('#/components/schemas/'))
      return inline(lookup(ref.slice('#/components/schemas/'.length)));
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  const lookup = (schemaName: string) => {
    const schema = schemas[schemaName];
    if (!schema) throw new ValidationError(`No schema ${schemaName} in the OpenAPI document`);
    return schema;
  };
  return inline(lookup(name)) as Record<string, unknown>;
}
