#!/usr/bin/env bash
# Recovery benchmark: one job on a multi-process deployment on this machine (ata kafka,
# ata broker, AGENTS x ata worker, ata trainer), where each part in turn is killed with SIGKILL and
# restarted at once under the same id, then agent-1 is frozen with SIGSTOP for 20 s (longer than
# its session and transaction timeouts) and let go, and last agent-2 is killed for good. Prints,
# per event, the progress lost: the longest pause between two closed rounds in the minute after
# it, minus the median pause before the first kill.
#
#   deploy/bench/recovery.sh [--agents N] [--pause SECONDS between kills, default 60] [--out DIR]
#
# Needs the built distribution (./ata builds it on first use). Ports 19092 (Kafka), 18081 (Schema
# Registry) and 18088 (broker HTTP) must be free.
set -euo pipefail

AGENTS=4
PAUSE=60
OUT=out/recovery
while [ $# -gt 0 ]; do
  case "$1" in
    --agents) AGENTS="$2"; shift 2 ;;
    --pause) PAUSE="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "recovery.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
ATA="$ROOT/ata"
BOOT=127.0.0.1:19092
REGISTRY=http://127.0.0.1:18081
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
rm -rf "$OUT"/kafka "$OUT"/state "$OUT"/*.log
declare -A PIDS

# build the distribution if it is stale, then run a copy: the parts restart from the same jar
# even if the sources change (and ./ata would rebuild) during the run
"$ATA" --version >/dev/null
cp "$ROOT/cli/target/ata.jar" "$OUT/ata.jar"

# every line a part prints, stamped with the epoch time in seconds
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done; }

start() { # name, then the ata command line; $! is the part's JVM
  local name="$1"; shift
  java -Djava.awt.headless=true -jar "$OUT/ata.jar" "$@" > >(stamp >>"$OUT/$name.log") 2>&1 &
  PIDS[$name]=$!
}

common=(--bootstrap-servers="$BOOT" --schema-registry-url="$REGISTRY")
start_broker() {
  start broker broker --bootstrap-servers="$BOOT" --registry-port=18081 --http-port=18088 \
    --state-dir="$OUT/state" --liveness-timeout=3s --log-level=warn
}
start_agent() {
  start "$1" worker "${common[@]}" --worker-id="$1" --time-model=linear --worker-index="$2" \
    --time-scale=0.2 --heartbeat-interval=500ms --log-level=warn
}
start_trainer() {
  start trainer trainer "${common[@]}" --job=recovery --policy=ata-auto --batch=4 --rounds=100000 \
    --log-level=warn
}

cleanup() { for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

echo "starting kafka, the broker, $AGENTS agents and the trainer (logs in $OUT)"
start kafka kafka --port=19092 --data-dir="$OUT/kafka" --topics --task-partitions=8
sleep 8
start_broker
sleep 8
for i in $(seq 1 "$AGENTS"); do start_agent "agent-$i" "$i"; done
sleep 8
start_trainer

rounds_closed() { local n; n="$(grep -cE '^[0-9.]+ round [0-9]+:' "$OUT/trainer.log" 2>/dev/null)"; echo "${n:-0}"; }
echo "waiting for 50 rounds before the first kill"
while [ "$(rounds_closed)" -lt 50 ]; do sleep 1; done
sleep 5

kills=()
kill_part() { # name [for-good]: SIGKILL the part's JVM, then restart it at once unless for good
  local name="$1" for_good="${2:-}"
  kill -9 "${PIDS[$name]}"
  wait "${PIDS[$name]}" 2>/dev/null || true
  local t; t="$(date +%s.%N)"
  if [ -n "$for_good" ]; then
    kills+=("$name(for-good) $t")
    unset "PIDS[$name]"
    echo "killed $name for good; rounds closed so far: $(rounds_closed)"
    sleep "$PAUSE"
    return
  fi
  kills+=("$name $t")
  case "$name" in
    broker) start_broker ;;
    trainer) start_trainer ;;
    agent-*) start_agent "$name" "${name#agent-}" ;;
  esac
  echo "killed and restarted $name; rounds closed so far: $(rounds_closed)"
  sleep "$PAUSE"
}
freeze_part() { # name seconds: SIGSTOP the part's JVM (it keeps its group membership until its
  # session times out, and its open transaction until Kafka aborts it), SIGCONT it after that long
  local name="$1" seconds="$2"
  kill -STOP "${PIDS[$name]}"
  local t; t="$(date +%s.%N)"
  kills+=("$name(frozen-${seconds}s) $t")
  sleep "$seconds"
  kill -CONT "${PIDS[$name]}"
  echo "froze $name for $seconds s; rounds closed so far: $(rounds_closed)"
  sleep "$PAUSE"
}
kill_part agent-1
kill_part trainer
kill_part broker
kill_part "agent-$AGENTS"
freeze_part agent-1 20
kill_part agent-2 for-good

python3 - "$OUT/trainer.log" "${kills[@]}" <<'EOF'
import re, statistics, sys
log, kills = sys.argv[1], [k.split() for k in sys.argv[2:]]
closes = sorted(float(m.group(1)) for line in open(log)
                if (m := re.match(r'^([0-9.]+) round [0-9]+:', line)))
first_kill = float(kills[0][1])
before = [b - a for a, b in zip(closes, closes[1:]) if b < first_kill]
median = statistics.median(before)
print(f"rounds closed: {len(closes)}; median time between rounds before the first kill: {median * 1000:.0f} ms")
print(f"{'event':<20} {'longest pause after the kill':>30} {'progress lost':>15}")
for name, t in kills:
    t = float(t)
    after = [c for c in closes if c > t]
    prior = max([c for c in closes if c <= t], default=t)
    window = [prior] + [c for c in after if c < t + 60]
    longest = max((b - a for a, b in zip(window, window[1:])), default=float('nan'))
    print(f"{name:<20} {longest:>28.1f} s {max(0.0, longest - median):>13.1f} s")
EOF
