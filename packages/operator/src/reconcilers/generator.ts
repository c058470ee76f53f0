import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from '@muse/core';
import { updateGenerator, upsertGenerator, type GeneratorRow, type GenerationKind } from '@muse/content-api';
import type { GeneratorResource } from '../resources/schemas.ts';
import { platformCall } from './platform-errors.ts';
import { ownerOf, readSecretKey, type Reconciler } from './types.ts';

async function ownedGenerator(db: Sequelize, owner: string): Promise<GeneratorRow | undefined> {
  const [row] = await db.query<GeneratorRow>('SELECT * FROM content.generators WHERE managed_by = :owner', {
    replacements: { owner },
    type: QueryTypes.SELECT,
  });
  return row;
}

/**
 * A Generator resource is a generator of the content service, written through the same
 * `upsertGenerator` as POST/PATCH /generators. Its row is marked `managed_by` this resource; a
 * generator of the same name made through the admin API is never taken over (Conflict).
 */
export const generatorReconciler: Reconciler<GeneratorResource> = {
  kind: 'Generator',

  secretNames: (resource) => (resource.spec.apiKey ? [resource.spec.apiKey.secretKeyRef.name] : []),

  async reconcile(resource, { db, kube, secrets: box }) {
    const { spec, metadata } = resource;
    const owner = ownerOf(resource);
    const apiKey = spec.apiKey
      ? await readSecretKey(kube, metadata.namespace, spec.apiKey.secretKeyRef)
      : null;
    const row = await platformCall(() =>
      db.transaction(async (transaction) => {
        const [owned] = await db.query<{ id: string }>(
          'SELECT id FROM content.generators WHERE managed_by = :owner FOR UPDATE',
          { replacements: { owner }, type: QueryTypes.SELECT, transaction },
        );
        const saved = await upsertGenerator(
          db,
          box,
          {
            id: owned?.id ?? randomUUID(),
            name: spec.displayName ?? metadata.name,
            kind: spec.kind as GenerationKind,
            type: spec.type,
            description: spec.description ?? '',
            base_cost: spec.baseCost,
            is_active: spec.active ?? true,
            config: spec.config ?? {},
            // null removes a key that the resource no longer references.
            secrets: { api_key: apiKey },
            ...(spec.parametersSchema ? { parameters_schema: spec.parametersSchema } : {}),
          },
          transaction,
        );
        if (!owned) {
          await db.query('UPDATE content.generators SET managed_by = :owner WHERE id = :id', {
            replacements: { owner, id: saved.id },
            transaction,
          });
        }
        return saved;
      }),
    );
    return {
      ready: true,
      reason: 'Reconciled',
      message: `generator ${row.id} is ${row.is_active ? 'active' : 'inactive'}`,
      status: { generatorId: row.id },
    };
  },

  /** As DELETE /generators/{id}: deactivated, since past generations keep pointing at it. */
  async finalize(resource, { db, secrets: box }) {
    const row = await ownedGenerator(db, ownerOf(resource));
    if (row?.is_active) await updateGenerator(db, box, row.id, { is_active: false });
  },
};
