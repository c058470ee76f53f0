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
import { connectBus, createRuntime, type Runtime } from '../runtime.ts';

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
  const runtime = createRuntime(config, name, { servesRequests: true });
  // Bootstrap and development defaults are applied before serving; a bad bootstrap file stops the start.
  const prepare = async () => {
    await connectBus(runtime);
    await service.prepare?.(runtime);
  };
  await prepare().catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  const app = service.create(runtime);
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
