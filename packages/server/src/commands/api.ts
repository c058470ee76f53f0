import { listen, onShutdownSignal, type Config } from '@muse/core';
import { createContentApp } from '@muse/content-api';
import { createChatApp } from '@muse/chat-api';
import { createRuntime } from '../runtime.ts';

const services = {
  'content-api': { create: createContentApp, port: (config: Config) => config.MUSE_CONTENT_PORT },
  'chat-api': { create: createChatApp, port: (config: Config) => config.MUSE_CHAT_PORT },
} as const;

export type ApiName = keyof typeof services;

/** Serves one API until SIGTERM, then drains in-flight requests and exits. */
export async function runApi(name: ApiName, config: Config): Promise<void> {
  const runtime = createRuntime(config, name);
  const service = services[name];
  const app = service.create(runtime);
  const server = await listen(app, {
    host: config.MUSE_HOST,
    port: service.port(config),
    logger: runtime.logger,
    shutdownTimeoutMs: config.MUSE_SHUTDOWN_TIMEOUT_MS,
  });
  runtime.logger.info({ url: server.url }, `${name} listening`);
  onShutdownSignal(runtime.logger, async () => {
    await server.close();
    await runtime.close();
  });
}
