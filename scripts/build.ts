// `npm run build`: every package compiled by tsc into its dist/ (JavaScript and declarations), in
// dependency order, since each compiles against the declarations of the ones before it.
//   npm run build                    all of them (under Node 24, fetched by the preflight if need be)
//   npm run build -- sdk cli         only these (by folder name)
// Server packages mirror their folder in dist/ (dist/src, dist/migrations and the API documents they
// read at run time), so relative paths hold. The published ones (@muse/sdk, @muse/cli) get a dist/
// that is the package itself: its own package.json, README, LICENSE and CHANGELOG — `npm pack
// sdk/dist` (and lerna, through publishConfig.directory) takes that folder.
import { spawnSync } from 'node:child_process';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Target {
  dir: string;
  /** Files and folders read at run time, copied beside the compiled sources. */
  assets?: string[];
  /** Published to the registry: dist/ becomes a package of its own. */
  published?: boolean;
}

/** In dependency order (the content API compiles against the SDK's generated types). */
const TARGETS: Target[] = [
  { dir: 'packages/core' },
  { dir: 'sdk', published: true },
  { dir: 'packages/content-api', assets: ['openapi', 'asyncapi'] },
  { dir: 'packages/chat-api', assets: ['openapi.yaml'] },
  { dir: 'temporal' },
  { dir: 'packages/operator' },
  { dir: 'packages/server' },
  { dir: 'cli', published: true },
];

const root = path.resolve(import.meta.dirname, '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !TARGETS.some((target) => path.basename(target.dir) === name));
if (unknown.length) {
  console.error(`unknown package folder(s): ${unknown.join(', ')}`);
  process.exit(2);
}

for (const target of TARGETS) {
  if (wanted.length && !wanted.includes(path.basename(target.dir))) continue;
  const started = Date.now();
  const dir = path.join(root, target.dir);
  const dist = path.join(dir, 'dist');
  await rm(dist, { recursive: true, force: true });
  const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  if (compiled.status !== 0) process.exit(compiled.status ?? 1);
  await fixDeclarationImports(dist);
  for (const asset of target.assets ?? [])
    await cp(path.join(dir, asset), path.join(dist, asset), { recursive: true });
  if (target.published) await writePublishedPackage(dir, dist);
  console.log(`built ${target.dir}/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** tsc rewrites relative `.ts` imports to `.js` in JavaScript but not in declarations. */
async function fixDeclarationImports(dist: string): Promise<void> {
  for (const file of await readdir(dist, { recursive: true })) {
    if (!file.endsWith('.d.ts')) continue;
    const target = path.join(dist, file);
    const text = await readFile(target, 'utf8');
    await writeFile(target, text.replace(/((?:from\s+|import\()'\.{1,2}\/[^']*)\.ts'/g, "$1.js'"));
  }
}

/** The package.json the registry gets: the compiled entry points, the workspace's own fields. */
async function writePublishedPackage(dir: string, dist: string): Promise<void> {
  const source = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const toDist = (entry: string) => `./${entry.replace(/^\.\/src\//, '').replace(/\.ts$/, '.js')}`;
  const exportsOf = (entry: string) => ({
    types: toDist(entry).replace(/\.js$/, '.d.ts'),
    default: toDist(entry),
  });
  const published: Record<string, unknown> = {
    name: source.name,
    version: source.version,
    description: source.description,
    license: source.license,
    type: 'module',
    engines: source.engines,
    sideEffects: false,
    exports: Object.fromEntries(
      Object.entries(source.exports as Record<string, { default: string }>).map(([subpath, entry]) => [
        subpath,
        exportsOf(entry.default),
      ]),
    ),
    dependencies: await publishedDependencies(source.dependencies as Record<string, string>),
  };
  if (source.bin) {
    // The checkout's bin is a wrapper (bin/NAME.mjs) that runs src/main.ts under Node 24; the
    // published one is main.ts compiled, which any Node from 20 runs.
    published.bin = Object.fromEntries(
      Object.keys(source.bin as Record<string, string>).map((name) => [name, toDist('./src/main.ts')]),
    );
    delete published.sideEffects;
  }
  await writeFile(path.join(dist, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  for (const file of ['README.md', 'CHANGELOG.md']) await cp(path.join(dir, file), path.join(dist, file));
  await cp(path.join(root, 'LICENSE'), path.join(dist, 'LICENSE'));
}

/** A workspace dependency (`"@muse/sdk": "*"`) is published as a range of its current version. */
async function publishedDependencies(dependencies: Record<string, string>): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const [name, range] of Object.entries(dependencies)) {
    const workspace = TARGETS.find(
      (target) => target.published && name === `@muse/${path.basename(target.dir)}`,
    );
    if (!workspace) result[name] = range;
    else {
      const manifest = JSON.parse(await readFile(path.join(root, workspace.dir, 'package.json'), 'utf8')) as {
        version: string;
      };
      result[name] = `^${manifest.version}`;
    }
  }
  return result;
}
