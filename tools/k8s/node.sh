#!/usr/bin/env bash
# A real single-node Kubernetes on this machine, for the cluster end-to-end suite (root only).
#
#   tools/k8s/node.sh up              # containerd, dockerd, etcd, API server, controller-manager,
#                                     # scheduler, kubelet, kube-proxy, CoreDNS; prints KUBECONFIG
#   tools/k8s/node.sh load IMAGE...   # docker images into the node's containerd (docker.io/IMAGE)
#   tools/k8s/node.sh down            # pods first, then daemons; mounts, veths, cgroups, iptables
#                                     # and sysctls as they were before `up`
#   tools/k8s/node.sh docker          # only containerd + dockerd (for `docker build`)
#
# Everything listens on loopback or on NODE_IP, an address on a bridge of our own; CoreDNS has no
# `forward` and pod traffic to anywhere but the node and other pods is dropped, so nothing leaves
# the machine. Binaries come from build.sh and build-node.sh (cached by version).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STATE=/run/muse-k8s          # configs, certificates, pids, logs: gone with `down`
DATA=/var/lib/muse-k8s       # etcd, kubelet and containerd roots: gone with `down`
LOGS="${MUSE_K8S_LOGS:-$STATE/logs}"
NODE=muse-node
NODE_IP=10.245.0.1           # API server, kubelet, CoreDNS, and where pods find the node's services
NODE_BRIDGE=muse-k8s0
POD_CIDR=10.244.0.0/24
SERVICE_CIDR=10.96.0.0/16
CONTAINERD_SOCK=$STATE/containerd.sock
DOCKER_SOCK=/run/muse-k8s-docker.sock
export DOCKER_HOST="unix://$DOCKER_SOCK"
PAUSE_IMAGE=local/pause:1
SYSCTLS=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables vm.overcommit_memory kernel.panic kernel.panic_on_oops)

log() { echo "node.sh: $*" >&2; }

ensure_packages() {
  local missing=()
  for tool in containerd dockerd runc iptables conntrack socat; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  [[ -x /usr/lib/cni/bridge ]] || missing+=(cni)
  ((${#missing[@]} == 0)) && return
  log "installing the container engine (missing: ${missing[*]})"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    docker.io containerd runc containernetworking-plugins iptables conntrack socat ethtool kmod >&2
}

# Starts a daemon in the background with its own log; its pid goes to $STATE/pids/NAME.
start() {
  local name="$1"; shift
  mkdir -p "$STATE/pids" "$LOGS"
  setsid "$@" >"$LOGS/$name.log" 2>&1 < /dev/null &
  echo $! > "$STATE/pids/$name"
}

running() { [[ -f "$STATE/pids/$1" ]] && kill -0 "$(cat "$STATE/pids/$1")" 2>/dev/null; }

wait_for() {
  local what="$1" seconds="$2"; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then
      log "$what not ready after ${seconds} s; last log lines:"
      tail -n 30 "$LOGS/$what.log" >&2 2>/dev/null || true
      return 1
    fi
    sleep 0.5
  done
}

stop() {
  local name="$1" grace="${2:-20}" pid
  [[ -f "$STATE/pids/$name" ]] || return 0
  pid="$(cat "$STATE/pids/$name")"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 4; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$STATE/pids/$name"
}

start_docker() {
  ensure_packages
  mkdir -p "$STATE" "$DATA"
  if ! running containerd; then
    cat > "$STATE/containerd.toml" <<EOF
version = 2
root = "$DATA/containerd"
state = "$STATE/containerd"
[grpc]
  address = "$CONTAINERD_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/$PAUSE_IMAGE"
  # The VM's capability bounding set lacks CAP_SYS_RESOURCE: runc cannot lower oom_score_adj.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = false
EOF
    start containerd containerd --config "$STATE/containerd.toml"
    wait_for containerd 30 ctr --address "$CONTAINERD_SOCK" version
  fi
  if ! running dockerd; then
    # No iptables and no bridge: builds use `--network host`, so dockerd changes nothing in the
    # firewall (its FORWARD DROP policy would cut pod traffic).
    start dockerd dockerd --containerd="$CONTAINERD_SOCK" --host "$DOCKER_HOST" \
      --exec-root "$STATE/docker" --pidfile "$STATE/dockerd.pid" --iptables=false --ip-masq=false --bridge=none
    wait_for dockerd 60 docker version
  fi
}

certificates() {
  local pki="$STATE/pki"
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=muse-k8s-ca -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  sign() { # name subject [subjectAltName]
    local name="$1" subject="$2" san="${3:-}"
    openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$pki/$name.key" -out "$pki/$name.csr" 2>/dev/null
    openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
      ${san:+-extfile <(printf 'subjectAltName=%s' "$san")} -out "$pki/$name.crt" 2>/dev/null
  }
  sign apiserver /CN=kube-apiserver \
    "IP:10.96.0.1,IP:$NODE_IP,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  sign apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

# One static token per component (user, groups); RBAC's defaults bind the system users.
tokens() {
  : > "$STATE/tokens.csv"
  local entry name user groups token
  for entry in "admin|admin|system:masters" "kubelet|system:node:$NODE|system:nodes" \
    "controller-manager|system:kube-controller-manager|" "scheduler|system:kube-scheduler|" \
    "kube-proxy|system:kube-proxy|" "coredns|coredns|system:masters"; do
    IFS='|' read -r name user groups <<<"$entry"
    token="$(openssl rand -hex 24)"
    echo "$token,$user,$user,\"$groups\"" >> "$STATE/tokens.csv"
    cat > "$STATE/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: muse, cluster: {server: "https://$NODE_IP:6443", certificate-authority: "$STATE/pki/ca.crt"}}]
users: [{name: $name, user: {token: "$token"}}]
contexts: [{name: muse, context: {cluster: muse, user: $name, namespace: default}}]
current-context: muse
EOF
  done
}

network() {
  ip link add "$NODE_BRIDGE" type bridge
  ip addr add "$NODE_IP/32" dev "$NODE_BRIDGE"
  ip link set "$NODE_BRIDGE" up
  for key in "${SYSCTLS[@]}"; do echo "$key=$(sysctl -n "$key")"; done > "$STATE/sysctls.before"
  iptables-save > "$STATE/iptables.before"
  sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
  # Pods reach each other, Services and the node; anything else would leave the machine.
  iptables -I FORWARD -s 10.244.0.0/16 ! -d 10.244.0.0/16 -j DROP
  mkdir -p "$STATE/cni"
  cat > "$STATE/cni/10-muse.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "muse", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": "$STATE/ipam"}},
  {"type": "portmap", "capabilities": {"portMappings": true}},
  {"type": "firewall", "backend": "iptables"}
]}
EOF
}

control_plane() {
  local kbin="$1" nbin="$2"
  start etcd "$kbin/etcd" --name=default --data-dir="$DATA/etcd" \
    --listen-client-urls=http://127.0.0.1:2479 --advertise-client-urls=http://127.0.0.1:2479 \
    --listen-peer-urls=http://127.0.0.1:2480 --initial-advertise-peer-urls=http://127.0.0.1:2480 \
    --initial-cluster=default=http://127.0.0.1:2480 --unsafe-no-fsync --log-level=error
  wait_for etcd 30 curl -sf http://127.0.0.1:2479/health
  start kube-apiserver "$kbin/kube-apiserver" --etcd-servers=http://127.0.0.1:2479 \
    --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port=6443 \
    --tls-cert-file="$STATE/pki/apiserver.crt" --tls-private-key-file="$STATE/pki/apiserver.key" \
    --client-ca-file="$STATE/pki/ca.crt" --token-auth-file="$STATE/tokens.csv" \
    --kubelet-client-certificate="$STATE/pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$STATE/pki/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$STATE/pki/sa.pub" \
    --service-account-signing-key-file="$STATE/pki/sa.key" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true
  wait_for kube-apiserver 120 kubectl --kubeconfig "$STATE/admin.kubeconfig" get --raw /readyz
  start kube-controller-manager "$nbin/kube-controller-manager" --kubeconfig="$STATE/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --service-account-private-key-file="$STATE/pki/sa.key" \
    --root-ca-file="$STATE/pki/ca.crt" --use-service-account-credentials=true \
    --cluster-cidr=10.244.0.0/16 --service-cluster-ip-range="$SERVICE_CIDR" --leader-elect=false
  start kube-scheduler "$nbin/kube-scheduler" --kubeconfig="$STATE/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --leader-elect=false
}

node_daemons() {
  local nbin="$1"
  cat > "$STATE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $STATE/pki/ca.crt}
authorization: {mode: Webhook}
clusterDNS: [$NODE_IP]
clusterDomain: cluster.local
resolvConf: ""
failSwapOn: false
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
EOF
  start kubelet "$nbin/kubelet" --config="$STATE/kubelet.yaml" --kubeconfig="$STATE/kubelet.kubeconfig" \
    --root-dir="$DATA/kubelet" --cert-dir="$STATE/kubelet-pki" --hostname-override="$NODE" --node-ip="$NODE_IP"
  cat > "$STATE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $STATE/kube-proxy.kubeconfig}
mode: iptables
hostnameOverride: $NODE
clusterCIDR: 10.244.0.0/16
bindAddress: $NODE_IP
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
nodePortAddresses: [$NODE_IP/32]
iptables: {localhostNodePorts: false}
conntrack: {maxPerCore: 0}
EOF
  start kube-proxy "$nbin/kube-proxy" --config="$STATE/kube-proxy.yaml"
  # Cluster DNS as a node process on NODE_IP: Service and Pod names only, no `forward`.
  cat > "$STATE/Corefile" <<EOF
.:53 {
  bind $NODE_IP
  errors
  ready 127.0.0.1:8181
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $STATE/coredns.kubeconfig muse
    pods insecure
  }
}
EOF
  start coredns "$nbin/coredns" -conf "$STATE/Corefile"
}

import_pause() {
  local nbin="$1" dir
  docker image inspect "$PAUSE_IMAGE" >/dev/null 2>&1 && return
  dir="$(mktemp -d)"
  cp "$nbin/pause" "$dir/pause"
  tar -C "$dir" -c pause | docker import --change 'ENTRYPOINT ["/pause"]' - "$PAUSE_IMAGE" >/dev/null
  rm -rf "$dir"
}

load() {
  docker save "$@" | ctr --address "$CONTAINERD_SOCK" -n k8s.io images import - >/dev/null
}

node_ready() {
  kubectl --kubeconfig "$STATE/admin.kubeconfig" get node "$NODE" \
    -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -qx True
}

up() {
  [[ "$(id -u)" == 0 ]] || { log "needs root (daemons, bridges, iptables)"; exit 1; }
  if [[ -f "$STATE/sysctls.before" ]]; then log "a node is already up (run: $0 down)"; exit 1; fi
  local started=$SECONDS kbin nbin
  kbin="$(bash "$here/build.sh")"
  nbin="$(bash "$here/build-node.sh")"
  export PATH="$nbin:$kbin:$PATH"
  start_docker
  certificates
  tokens
  network
  import_pause "$nbin"
  load "$PAUSE_IMAGE"
  control_plane "$kbin" "$nbin"
  node_daemons "$nbin"
  wait_for kubelet 120 node_ready
  wait_for coredns 60 curl -sf http://127.0.0.1:8181/ready
  log "node Ready in $((SECONDS - started)) s"
  echo "$STATE/admin.kubeconfig"
}

# Every step tolerates a half-started node, so `down` also cleans up after a failed `up`.
down() {
  local started=$SECONDS nbin kbin
  kbin="$(bash "$here/build.sh" --dir)"
  nbin="$(bash "$here/build-node.sh" --dir)"
  export PATH="$nbin:$kbin:$PATH"
  if running kube-apiserver && running kubelet; then
    # Pods first, through the kubelet, so CNI releases their addresses and veths.
    stop kube-controller-manager; stop kube-scheduler
    kubectl --kubeconfig "$STATE/admin.kubeconfig" delete pods --all --all-namespaces \
      --grace-period=5 --wait=true --timeout=90s >/dev/null 2>&1 || log "some pods did not stop in time"
  fi
  stop coredns; stop kube-proxy; stop kubelet 30
  stop kube-controller-manager; stop kube-scheduler; stop kube-apiserver; stop etcd
  if running containerd; then
    # Whatever the kubelet left: sandboxes and containers in the CRI namespace.
    local ctr=(ctr --address "$CONTAINERD_SOCK" -n k8s.io)
    for task in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true; done
    sleep 1
    for task in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks delete -f "$task" >/dev/null 2>&1 || true; done
    for container in $("${ctr[@]}" containers ls -q 2>/dev/null); do "${ctr[@]}" containers rm "$container" >/dev/null 2>&1 || true; done
  fi
  stop dockerd; stop containerd
  # Mounts below our directories (volumes, sandboxes' /dev/shm, overlay roots), deepest first.
  awk '{print $2}' /proc/mounts | grep -E "^($DATA|$STATE)/" | sort -r | while read -r mount; do umount -l "$mount" 2>/dev/null || true; done
  for link in $(ip -o link show master cni0 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do ip link del "$link" 2>/dev/null || true; done
  ip link del cni0 2>/dev/null || true
  ip link del "$NODE_BRIDGE" 2>/dev/null || true
  # The pods' cgroups, leaves first.
  for root in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/*/kubepods.slice; do
    [[ -d "$root" ]] && find "$root" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  if [[ -f "$STATE/iptables.before" ]]; then
    # iptables-restore replaces only the tables the save names (none, when no rule existed before
    # `up`): empty those kube-proxy and the CNI fill first, then put back what was there.
    for table in filter nat mangle; do iptables -t "$table" -F; iptables -t "$table" -X; done
    iptables-restore < "$STATE/iptables.before"
  fi
  if [[ -f "$STATE/sysctls.before" ]]; then
    while IFS='=' read -r key value; do sysctl -qw "$key=$value" || true; done < "$STATE/sysctls.before"
  fi
  conntrack -D -s 10.244.0.0/16 >/dev/null 2>&1 || true
  rm -rf "$STATE" "$DATA"
  log "down in $((SECONDS - started)) s"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  load) shift; load "$@" ;;
  docker) start_docker ;;
  kubeconfig) echo "$STATE/admin.kubeconfig" ;;
  *) echo "usage: $0 up | load IMAGE... | down | docker | kubeconfig" >&2; exit 2 ;;
esac
