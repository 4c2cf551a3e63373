#!/usr/bin/env bash
# PERF-7: the allowlist proxy's cost. (1) `npm ci --prefer-online` of a real project
# (tests/data/npm_project, fresh node_modules, warm cache) through the proxy with
# [network] allow = ["registry.npmjs.org"], against the same with --network, alternating ROUNDS
# times; (2) a 1 GiB download through a CONNECT tunnel from a loopback server outside the
# sandbox; (3) 200 tunnels at once. Network: only loopback and registry.npmjs.org.
set -euo pipefail
cordon=${1:?usage: perf7_proxy.sh CORDON [ROUNDS]}
rounds=${2:-3}
src="$(cd "$(dirname "$0")/.." && pwd)/tests/data/npm_project"
work=$(mktemp -d /var/tmp/cordon-perf7-XXXXXX)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  chmod -R u+rwx "$work"
  rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home"
mkdir -p "$HOME/project" "$HOME/.config/cordon"
cd "$HOME/project"
git init -q -b main .
now() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# A loopback server outside every sandbox: GET /sink answers 1 GiB, ECHO counts to half-close.
python3 - "$work/port" <<'PY' &
import socket, sys, threading
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0)); srv.listen(512)
open(sys.argv[1], "w").write(str(srv.getsockname()[1]))
chunk = b"x" * (1 << 20)
def serve(c):
    got = b""
    while b"\r\n\r\n" not in got and not got.startswith(b"ECHO"):
        d = c.recv(65536)
        if not d: break
        got += d
    if got.startswith(b"ECHO"):
        n = len(got)
        while True:
            d = c.recv(65536)
            if not d: break
            n += len(d)
        c.sendall(b"got %d\n" % n)
    else:
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (1024 << 20))
        for _ in range(1024): c.sendall(chunk)
    c.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
server_pid=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
printf '[network]\nallow = ["registry.npmjs.org", "127.0.0.1:%s"]\n' "$port" \
  >"$HOME/.config/cordon/config.toml"

echo "PERF-7: the allowlist proxy"
# (2) 1 GiB through a CONNECT tunnel (curl -p), measured inside.
speed=$("$cordon" run -- curl -sS --noproxy '' -p -o /dev/null -w '%{speed_download}' \
  "http://127.0.0.1:$port/sink" 2>"$work/curl.err" || true)
if [ -n "$speed" ]; then
  awk -v s="$speed" 'BEGIN { printf "  1 GiB through a CONNECT tunnel:   %.0f MiB/s (PERF-7 asks at least 300)\n", s / 1048576 }'
else
  echo "  1 GiB through a CONNECT tunnel: failed: $(tail -2 "$work/curl.err")"
fi
# (3) 200 tunnels at once, each sending 1 KB and half-closing.
UP=$port "$cordon" run -- python3 -c '
import os, socket, threading, time
P = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1]); port = int(os.environ["UP"])
ok = []
def one(i):
    try:
        s = socket.create_connection(("127.0.0.1", P), timeout=60)
        s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % port)
        h = b""
        while b"\r\n\r\n" not in h: h += s.recv(1)
        s.sendall(b"ECHO" + b"x" * 1000); s.shutdown(socket.SHUT_WR)
        r = b""
        while True:
            d = s.recv(100)
            if not d: break
            r += d
        ok.append(r == b"got 1004\n")
    except Exception:
        ok.append(False)
t = time.time()
ts = [threading.Thread(target=one, args=(i,)) for i in range(200)]
[x.start() for x in ts]; [x.join() for x in ts]
print("  200 tunnels at once:              %d of 200 complete in %.0f ms" % (sum(ok), (time.time() - t) * 1000))
' 2>/dev/null || echo "  200 tunnels at once: failed"
# (1) npm ci, proxy against --network.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "  npm ci: skipped (node and npm are not installed)"
  exit 0
fi
cp -r "$src/." "$HOME/project/"
git add -A && git -c user.name=b -c user.email=b@b commit -qm fixture
# Warm the project's cache once through each path.
if ! "$cordon" run --network -- npm ci --no-audit --no-fund >"$work/install.log" 2>&1; then
  echo "  npm ci: skipped (npm ci inside cordon run --network failed)"
  tail -5 "$work/install.log"
  exit 0
fi
proxied=() network=()
for ((i = 0; i < rounds; i++)); do
  rm -rf node_modules
  t0=$(now)
  "$cordon" run --network -- npm ci --prefer-online --no-audit --no-fund >"$work/net.log" 2>&1
  t1=$(now)
  rm -rf node_modules
  "$cordon" run -- npm ci --prefer-online --no-audit --no-fund >"$work/proxy.log" 2>&1 || {
    echo "  npm ci through the proxy failed:"; tail -5 "$work/proxy.log"; exit 0; }
  t2=$(now)
  network+=($(((t1 - t0) / 1000000)))
  proxied+=($(((t2 - t1) / 1000000)))
done
mn=$(median "${network[@]}")
mp=$(median "${proxied[@]}")
printf '  %-34s median %6d ms  (%s)\n' "npm ci --prefer-online, --network" "$mn" "${network[*]}"
printf '  %-34s median %6d ms  (%s)\n' "npm ci --prefer-online, proxy" "$mp" "${proxied[*]}"
awk -v p="$mp" -v n="$mn" 'BEGIN { printf "  ratio proxy/--network: %.3f (PERF-7 asks at most 1.15)\n", p / n }'
