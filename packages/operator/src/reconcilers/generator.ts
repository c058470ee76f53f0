import {
  findManagedGenerator,
  updateGenerator,
  upsertManagedGenerator,
  type GenerationKind,
} from '@muse/content-api/operator-store';
import type { GeneratorResource } from '../resources/schemas.ts';
import { platformCall } from './platform-errors.ts';
import { ownerOf, readSecretKey, type Reconciler } from './types.ts';

/**
 * A Generator resource is a generator of the content service, written through the same
 * `upsertGenerator` as POST/PATCH /generators (content-api's operator store). Its row is marked `managed_by` this resource; a
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
      upsertManagedGenerator(db, box, owner, {
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
    const row = await findManagedGenerator(db, ownerOf(resource));
    if (row?.is_active) await updateGenerator(db, box, row.id, { is_active: false });
  },
};
