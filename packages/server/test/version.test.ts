import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';

const read = (relative: string) => readFileSync(new URL(relative, import.meta.url), 'utf8');
const version = (JSON.parse(read('../package.json')) as { version: string }).version;

describe('the version of the platform', () => {
  it('is what `muse-server --version` prints', () => {
    const result = spawnSync(
      process.execPath,
      [fileURLToPath(new URL('../src/main.ts', import.meta.url)), '--version'],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it("is the image's label and the chart's appVersion, and has a CHANGELOG entry at the root and in the chart", () => {
    expect(read('../../../Dockerfile')).toContain(`ARG MUSE_VERSION=${version}\n`);
    const chart = parseYaml(read('../../../charts/muse/Chart.yaml')) as {
      version: string;
      appVersion: string;
    };
    expect(chart.appVersion).toBe(version);
    expect(read('../../../CHANGELOG.md')).toMatch(
      new RegExp(`^## ${version.replaceAll('.', '\\.')}\\b`, 'm'),
    );
    expect(read('../../../charts/muse/CHANGELOG.md')).toMatch(
      new RegExp(`^## ${chart.version.replaceAll('.', '\\.')}\\b`, 'm'),
    );
  });
});
