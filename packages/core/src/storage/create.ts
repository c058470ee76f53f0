import path from 'node:path';
import type { Config } from '../config.ts';
import { S3Storage } from './s3.ts';
import { LocalDiskStorage, type FileStorage } from './storage.ts';

/** S3-compatible storage when MUSE_S3_ENDPOINT and MUSE_S3_BUCKET are set, local disk otherwise. */
export function createFileStorage(config: Config): FileStorage {
  if (config.MUSE_S3_ENDPOINT && config.MUSE_S3_BUCKET) {
    if (!config.MUSE_S3_ACCESS_KEY_ID || !config.MUSE_S3_SECRET_ACCESS_KEY) {
      throw new Error(
        'MUSE_S3_ACCESS_KEY_ID and MUSE_S3_SECRET_ACCESS_KEY are required with MUSE_S3_ENDPOINT',
      );
    }
    return new S3Storage({
      endpoint: config.MUSE_S3_ENDPOINT,
      bucket: config.MUSE_S3_BUCKET,
      region: config.MUSE_S3_REGION,
      accessKeyId: config.MUSE_S3_ACCESS_KEY_ID,
      secretAccessKey: config.MUSE_S3_SECRET_ACCESS_KEY,
      ...(config.MUSE_S3_PREFIX ? { prefix: config.MUSE_S3_PREFIX } : {}),
    });
  }
  return new LocalDiskStorage(config.MUSE_STORAGE_DIR ?? path.join(config.MUSE_DATA_DIR, 'files'));
}
