import {
  closeApp,
  createSecretBox,
  listen,
  metricsHandler,
  metricsRegistryOf,
  onShutdownSignal,
  startTracing,
  type Config,
} from '@muse/core';
import { createRuntime, type Runtime } from '../runtime.ts';

// Each API's package is imported by its own process only: either one is a large module graph
// (the messaging API's emoji table, the content API's sockets and validator) the other never runs.
const services = {
  'content-api': {
    port: (config: Config) => config.MUSE_CONTENT_PORT,
    metricsPort: (config: Config) => config.MUSE_CONTENT_METRICS_PORT,
    load: async () => {
      const content = await import('@muse/content-api');
      return {
        create: content.createContentApp,
        prepare: (runtime: Runtime) =>
          content.prepareContentService(
            { ...runtime, secrets: createSecretBox(runtime.config.MUSE_SECRETS_KEY) },
            runtime.config,
          ),
        /** The conversation sockets share the API's port and its context. */
        attach: content.attachConversationSockets,
      };
    },
  },
  'chat-api': {
    port: (config: Config) => config.MUSE_CHAT_PORT,
    metricsPort: (config: Config) => config.MUSE_CHAT_METRICS_PORT,
    load: async () => {
      const chat = await import('@muse/chat-api');
      return { create: chat.createChatApp, prepare: undefined, attach: undefined };
    },
  },
} as const;

export type ApiName = keyof typeof services;

/** Serves one API until SIGTERM, then drains in-flight requests and exits. */
export async function runApi(name: ApiName, config: Config): Promise<void> {
  const tracing = await startTracing(name);
  const service = { ...services[name], ...(await services[name].load()) };
  const runtime = await createRuntime(config, name, { servesRequests: true });
  // Bootstrap and development defaults are applied before serving; a bad bootstrap file stops the start.
  const prepare = async () => {
    await service.prepare?.(runtime);
  };
  await prepare().catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  const app = service.create(runtime);
  releaseStartGarbage();
  const server = await listen(app, {
    host: config.MUSE_HOST,
    port: service.port(config),
    logger: runtime.logger,
    shutdownTimeoutMs: config.MUSE_SHUTDOWN_TIMEOUT_MS,
  });
  const sockets = service.attach?.(server.server, app);
  const metrics = await listen(metricsHandler(metricsRegistryOf(app)), {
    host: config.MUSE_HOST,
    port: service.metricsPort(config),
    logger: runtime.logger,
    shutdownTimeoutMs: config.MUSE_SHUTDOWN_TIMEOUT_MS,
  });
  runtime.logger.info({ url: server.url, metrics: `${metrics.url}/metrics` }, `${name} listening`);
  onShutdownSignal(runtime.logger, async () => {
    // Sockets first (close code 1001, so clients reconnect to another pod), then in-flight requests.
    await sockets?.close();
    await server.close();
    await closeApp(app);
    await metrics.close();
    await runtime.close();
    await tracing?.shutdown();
  });
}

/**
 * Loading the modules and building the app leave 20–40 MB of garbage in V8's old generation. V8
 * collects it when that generation grows again, which an idle process never makes it do (and its
 * memory reducer counts the start's allocations as a busy process's), so the pages stay resident.
 * Where the process may call the collector (the image runs node with --expose-gc), one full,
 * memory-reducing collection before listening returns them: no request waits on it.
 */
function releaseStartGarbage(): void {
  globalThis.gc?.({ type: 'major', flavor: 'last-resort' });
}
