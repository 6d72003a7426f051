#!/usr/bin/env bash
# Disk benchmark: the demo's job (mlp on Fashion-MNIST, Adam, batch 4, ata-auto) at full speed on
# a multi-process deployment on this machine (ata kafka --data-dir, ata broker, AGENTS x ata
# worker at natural speed with one PyTorch thread each, ata trainer), for MINUTES. Every minute it
# appends to OUT/disk.csv the size of the embedded Kafka's log directory (du -sb: apparent bytes,
# the sparse preallocated index files at their full length; and du -sk: blocks allocated), the
# rounds closed in that minute, the largest topic directories and the load average. At the end it
# prints the median rounds/s, the largest and the last size.
#
#   deploy/bench/disk.sh [--minutes M, default 60] [--agents N, default 4] [--out DIR]
#                        [--jar FILE: another build, e.g. an older one] [--port-base P, default 19]
#                        [-- further 'ata kafka' options, e.g. --broker-config KEY=VALUE]
#
# Needs the built distribution (./ata builds it on first use) and Fashion-MNIST (Debian:
# apt-get install dataset-fashion-mnist). Ports P092 (Kafka), P081 (Schema Registry) and P088
# (broker HTTP) must be free, e.g. 19092, 18081 and 18088.
set -euo pipefail

MINUTES=60
AGENTS=4
OUT=out/disk
JAR=
BASE=19
KAFKA_EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="$2"; shift 2 ;;
    --agents) AGENTS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --jar) JAR="$2"; shift 2 ;;
    --port-base) BASE="$2"; shift 2 ;;
    --) shift; KAFKA_EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "disk.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
KAFKA_PORT="${BASE}092"
REGISTRY_PORT="$((BASE - 1))081"
HTTP_PORT="$((BASE - 1))088"
BOOT="127.0.0.1:$KAFKA_PORT"
REGISTRY="http://127.0.0.1:$REGISTRY_PORT"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
rm -rf "$OUT"/kafka "$OUT"/state "$OUT"/*.log "$OUT"/disk.csv
PIDS=()

# run a copy of the jar: a rebuild during the run changes nothing
if [ -z "$JAR" ]; then
  "$ROOT/ata" --version >/dev/null
  JAR="$ROOT/cli/target/ata.jar"
fi
cp "$JAR" "$OUT/ata.jar"

start() { # name, then the ata command line
  local name="$1"; shift
  java -Djava.awt.headless=true -jar "$OUT/ata.jar" "$@" >"$OUT/$name.log" 2>&1 &
  PIDS+=($!)
}
cleanup() { # the trainer first, Kafka last: a part whose Kafka is gone takes long to stop
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill "${PIDS[i]}" 2>/dev/null || true
    timeout 30 tail --pid="${PIDS[i]}" -f /dev/null || kill -9 "${PIDS[i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT

common=(--bootstrap-servers="$BOOT" --schema-registry-url="$REGISTRY")
echo "starting kafka, the broker, $AGENTS agents and the trainer (logs in $OUT)"
start kafka kafka --port="$KAFKA_PORT" --data-dir="$OUT/kafka" --topics "${KAFKA_EXTRA[@]}"
until grep -q '^bootstrap.servers=' "$OUT/kafka.log" 2>/dev/null; do sleep 1; done
start broker broker --bootstrap-servers="$BOOT" --registry-port="$REGISTRY_PORT" --http-port="$HTTP_PORT" \
  --state-dir="$OUT/state"
until grep -q '^http=' "$OUT/broker.log" 2>/dev/null; do sleep 1; done
for i in $(seq 1 "$AGENTS"); do
  start "agent-$i" worker "${common[@]}" --worker-id="agent-$i" --data=fashion-mnist --threads=1
done
sleep 10
start trainer trainer "${common[@]}" --job=disk --policy=ata-auto --batch=4 --rounds=100000000 \
  --model=mlp --data=fashion-mnist --optimizer=adam --learning-rate=1e-3 --eval-every=10 --print-every=1

rounds_closed() { local n; n="$(grep -cE '^round [0-9]+:' "$OUT/trainer.log" 2>/dev/null)"; echo "${n:-0}"; }
echo "minute,unix_time,log_dir_apparent_bytes,log_dir_allocated_bytes,rounds_closed,rounds_per_s,load1,load5,largest_dirs" \
  >"$OUT/disk.csv"
previous=0
begin="$(date +%s)"
for minute in $(seq 1 "$MINUTES"); do
  wait_s=$((begin + 60 * minute - $(date +%s)))
  if [ "$wait_s" -gt 0 ]; then sleep "$wait_s"; fi
  apparent="$(du -sb "$OUT/kafka" | cut -f1)"
  allocated="$(($(du -sk "$OUT/kafka" | cut -f1) * 1024))"
  rounds="$(rounds_closed)"
  read -r load1 load5 _ </proc/loadavg
  largest="$(du -sb "$OUT"/kafka/*/ 2>/dev/null | sort -rn | head -4 \
    | awk '{n = split($2, p, "/"); printf "%s%s=%.0fMB", (NR > 1 ? " " : ""), p[n - 1], $1 / 1e6}')"
  printf '%d,%d,%d,%d,%d,%.2f,%s,%s,%s\n' "$minute" "$(date +%s)" "$apparent" "$allocated" "$rounds" \
    "$(echo "($rounds - $previous) / 60" | bc -l)" "$load1" "$load5" "$largest" >>"$OUT/disk.csv"
  tail -1 "$OUT/disk.csv"
  if [ "$rounds" -eq "$previous" ]; then echo "disk.sh: no round closed in minute $minute" >&2; fi
  previous="$rounds"
  for pid in "${PIDS[@]}"; do
    kill -0 "$pid" 2>/dev/null || { echo "a part stopped (pid $pid): see $OUT/*.log" >&2; exit 1; }
  done
done

python3 - "$OUT/disk.csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rates = [float(r["rounds_per_s"]) for r in rows[1:]] or [float(rows[0]["rounds_per_s"])]
gb = lambda key, r: int(r[key]) / 1e9
print(f"minutes: {len(rows)}; median rounds/s: {statistics.median(rates):.2f} (first minute left out)")
for key in ("log_dir_apparent_bytes", "log_dir_allocated_bytes"):
    print(f"{key}: max {max(gb(key, r) for r in rows):.2f} GB, final {gb(key, rows[-1]):.2f} GB")
print(f"load average (1 min): median {statistics.median(float(r['load1']) for r in rows):.2f}, "
      f"max {max(float(r['load1']) for r in rows):.2f}")
EOF
