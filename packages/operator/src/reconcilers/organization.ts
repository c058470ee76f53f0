import type { V1Secret } from '@kubernetes/client-node';
import type { Sequelize } from '@muse/core';
import {
  claimOrganization,
  createChatUser,
  createOrganization,
  findAccountByEmail,
  findOrganization,
  ROLE_NAMES,
  updateOrganization,
} from '@muse/chat-api/operator-store';
import { isNotFound } from '../kube/client.ts';
import { GROUP, VERSION, type OrganizationResource } from '../resources/schemas.ts';
import { ownerOf, ReconcileProblem, type ReconcileContext, type Reconciler } from './types.ts';

export const apiKeySecretName = (resource: OrganizationResource) =>
  resource.spec.apiKeySecretName ?? `${resource.metadata.name}-owner`;

/** The organization, created through the same functions as `muse-server chat create-organization`. */
async function ensureOrganization(resource: OrganizationResource, db: Sequelize): Promise<number> {
  const { spec } = resource;
  const owner = ownerOf(resource);
  const existing = await findOrganization(db, spec.subdomain);
  if (existing && existing.managed_by !== owner) {
    throw new ReconcileProblem(
      'Conflict',
      `an organization with subdomain '${spec.subdomain}' exists and was not created by this resource; it is left alone`,
    );
  }
  if (existing) {
    await updateOrganization(db, existing.id, {
      name: spec.name,
      description: spec.description ?? '',
      deactivated: false,
    });
    return existing.id;
  }
  const realm = await createOrganization(db, {
    subdomain: spec.subdomain,
    name: spec.name,
    ...(spec.description ? { description: spec.description } : {}),
  });
  await claimOrganization(db, realm.id, owner);
  return realm.id;
}

/** The Secret with the owner's key, owned by the resource (garbage-collected with it). */
async function writeKeySecret(
  resource: OrganizationResource,
  { kube }: ReconcileContext,
  owner: { email: string; apiKey: string },
): Promise<void> {
  const name = apiKeySecretName(resource);
  const namespace = resource.metadata.namespace;
  const data = {
    email: Buffer.from(owner.email).toString('base64'),
    'api-key': Buffer.from(owner.apiKey).toString('base64'),
  };
  const ownerReference = {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: resource.kind,
    name: resource.metadata.name,
    uid: resource.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  let current: V1Secret | undefined;
  try {
    current = await kube.core.readNamespacedSecret({ name, namespace });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (!current) {
    await kube.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name, namespace, ownerReferences: [ownerReference] }, type: 'Opaque', data },
    });
    return;
  }
  if (!current.metadata?.ownerReferences?.some((ref) => ref.uid === resource.metadata.uid)) {
    throw new ReconcileProblem(
      'SecretConflict',
      `Secret ${namespace}/${name} exists and is not owned by this resource`,
    );
  }
  if (current.data?.email === data.email && current.data?.['api-key'] === data['api-key']) return;
  await kube.core.replaceNamespacedSecret({ name, namespace, body: { ...current, data } });
}

/**
 * A ChatOrganization resource is an organization of the messaging API with its owner; the
 * owner's API key goes into a Secret the resource owns. Deleting the resource deactivates the
 * organization (its messages are kept; recreating the resource reactivates it).
 */
export const organizationReconciler: Reconciler<OrganizationResource> = {
  kind: 'ChatOrganization',

  secretNames: (resource) => [apiKeySecretName(resource)],

  async reconcile(resource, context) {
    const { db } = context;
    const { spec } = resource;
    const realmId = await ensureOrganization(resource, db);
    let account = await findAccountByEmail(db, realmId, spec.owner.email);
    if (!account) {
      const user = await createChatUser(db, {
        subdomain: spec.subdomain,
        email: spec.owner.email,
        fullName: spec.owner.fullName,
        role: ROLE_NAMES.owner!,
      });
      account = { id: user.id, api_key: user.api_key, delivery_email: user.delivery_email };
    }
    await writeKeySecret(resource, context, { email: account.delivery_email, apiKey: account.api_key });
    return {
      ready: true,
      reason: 'Reconciled',
      message: `organization ${realmId} is active; the owner's API key is in Secret ${apiKeySecretName(resource)}`,
      status: { realmId, ownerUserId: account.id, apiKeySecretName: apiKeySecretName(resource) },
    };
  },

  async finalize(resource, { db, kube }) {
    const realm = await findOrganization(db, resource.spec.subdomain);
    if (realm && realm.managed_by === ownerOf(resource))
      await updateOrganization(db, realm.id, { deactivated: true });
    const name = apiKeySecretName(resource);
    try {
      const secret = await kube.core.readNamespacedSecret({ name, namespace: resource.metadata.namespace });
      if (secret.metadata?.ownerReferences?.some((ref) => ref.uid === resource.metadata.uid))
        await kube.core.deleteNamespacedSecret({ name, namespace: resource.metadata.namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  },
};
