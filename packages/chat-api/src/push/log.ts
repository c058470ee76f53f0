import type { Logger } from '@muse/core';
import type { PushDevice, PushNotification, PushOutcome, PushSender } from './sender.ts';

/**
 * Development only (refused in production, like the SMS `log` provider): logs what it would send
 * and reports it delivered, so clients can register devices and test notifications offline.
 * Tokens are logged by their last characters only.
 */
export class LogSender implements PushSender {
  readonly name = 'log';
  private readonly logger: Logger;
  constructor(logger: Logger) {
    this.logger = logger;
  }

  async register(device: PushDevice): Promise<void> {
    this.logger.info({ push: describe(device) }, 'push (log sender): device registered');
  }

  async unregister(device: PushDevice): Promise<void> {
    this.logger.info({ push: describe(device) }, 'push (log sender): device removed');
  }

  async send(devices: PushDevice[], notification: PushNotification): Promise<Map<number, PushOutcome>> {
    const outcomes = new Map<number, PushOutcome>();
    for (const device of devices) outcomes.set(device.id, await this.sendTest(device, notification));
    return outcomes;
  }

  async sendTest(device: PushDevice, notification: PushNotification): Promise<PushOutcome> {
    this.logger.info(
      { push: describe(device), alert: notification.alert, data: notification.data },
      'push (log sender): would send',
    );
    return 'delivered';
  }
}

const describe = (device: PushDevice) => ({
  user_id: device.user_id,
  kind: device.kind,
  token: `…${device.token.slice(-6)}`,
});
