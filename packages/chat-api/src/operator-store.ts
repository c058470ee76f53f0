/**
 * The door the Kubernetes operator comes through (`@muse/chat-api/operator-store`): the
 * organization and account functions `muse-server chat` runs, and the claim of an organization
 * by the resource that manages it.
 */
export {
  claimOrganization,
  createChatUser,
  createOrganization,
  findAccountByEmail,
  findOrganization,
  ROLE_NAMES,
  updateOrganization,
} from './bootstrap.ts';
