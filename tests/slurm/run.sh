#!/usr/bin/env bash
# The self-play recipe (deploy/slurm/tune-gen.sh) on a real one-node Slurm; see
# docs/scale-out.md. A private cluster (munged, slurmctld and slurmd on localhost, configured
# in a temporary directory, stopped and deleted when this script ends) runs the shards as a
# job array. Then:
#   1. the shards, merged into one sample file, hold as many positions and bytes as the whole
#      run made in one process;
#   2. each shard is byte for byte the same file as that shard run outside Slurm (the script
#      with SLURM_ARRAY_TASK_ID set by hand), same seed;
#   3. one shard deleted and the array submitted again: only that task plays, the others keep
#      their files untouched, and the new file is again the same bytes;
#   4. one shard alone (SHARDS set, the task id is the shard) requeued while it plays, as a
#      preempted task is: it leaves no shard file behind, and plays again to the same bytes;
#   5. the match recipe (deploy/slurm/match.sh) as an array too: the same bytes as outside
#      Slurm, and merged, the result of the whole match.
#
#   tests/slurm/run.sh [DAMA]      # DAMA: the binary (default target/release/dama)
#
# SHARDS, GAMES, NODES and SEED size the run (default 4 shards of 10 games, 200 nodes a move).
# It runs as root, and installs Debian's munge and Slurm packages when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
dama=$(realpath "${1:-target/release/dama}")
if ! [ -x "$dama" ]; then
    echo "no dama binary at $dama: cargo build --release -p dama-cli" >&2
    exit 2
fi
shards=${SHARDS:-4}
games=${GAMES:-40}
nodes=${NODES:-200}
seed=${SEED:-7}
# The plain array's rule is tested first: a SHARDS of the caller's is not passed on.
unset SHARDS
# Slurm's variables of an enclosing job (this script run inside an allocation) would be
# passed on to the local runs and to sbatch: only those set below count.
for v in $(compgen -e | grep '^SLURM_' || true); do unset "$v"; done

# The daemons run as root (SlurmUser=root): a job is started under its submitter's user,
# which only a root slurmd can do, and root may submit.
if [ "$(id -u)" != 0 ]; then
    echo "run as root: slurmd starts each job as its submitter's user" >&2
    exit 2
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge >/dev/null
fi

# Everything of the cluster lives in one directory: its own munge key and socket and its own
# ports, so that a Slurm or munge of the machine's is neither used nor disturbed. munged
# wants the socket's directory searchable by all and the key's readable by its owner only.
dir=$(mktemp -d /tmp/dama-slurm.XXXXXX)
chmod 755 "$dir"
mkdir -m 700 "$dir/munge"
mkdir "$dir/state" "$dir/spool" "$dir/logs"
stop() {
    local pids=()
    for file in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munge/munged.pid; do
        if [ -s "$file" ]; then pids+=("$(cat "$file")"); fi
    done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    # The directory goes once they have: slurmctld saves its state into it as it stops.
    for _ in $(seq 50); do
        local alive=0
        for pid in "${pids[@]}"; do if kill -0 "$pid" 2>/dev/null; then alive=1; fi; done
        if [ "$alive" = 0 ]; then break; fi
        sleep 0.1
    done
    rm -rf "$dir"
}
trap stop EXIT
fail() {
    echo "$*" >&2
    for log in "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/logs/*.log; do
        if [ -f "$log" ]; then echo "== $log" >&2 && tail -20 "$log" >&2; fi
    done
    exit 1
}

mungekey -c -k "$dir/munge/munge.key"
munged --socket="$dir/munge.socket" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/munge/munged.log" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/munged.seed"
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
# The recipe asks for --mem=1G: the node offers nine tenths of the machine's memory (slurmd
# drains a node that claims more than it has).
mem=$(awk '/^MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
# No cgroups: the cgroup plugins would make Slurm's cgroups in the machine's hierarchies and
# move the jobs there, out of this script's own cgroup; processes are tracked through /proc
# and tasks are not bound to CPUs. No accounting database either: the jobs are followed with
# squeue and scontrol.
cat >"$dir/slurm.conf" <<EOF
ClusterName=dama-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -c -f "$SLURM_CONF"
slurmd -N localhost -f "$SLURM_CONF"
for _ in $(seq 60); do
    if [ "$(sinfo -h -n localhost -o %T 2>/dev/null)" = idle ]; then break; fi
    sleep 0.5
done
[ "$(sinfo -h -n localhost -o %T 2>/dev/null)" = idle ] || fail "the node did not come up idle"
sinfo

work="$dir/work"
mkdir "$work"
# The table directory is one of this run's: the engine never reads or builds the user's.
export DAMA="$dama" GAMES="$games" NODES="$nodes" SEED="$seed" DAMA_EGTB="$work/egtb"
# `sbatch_gen ARRAY SHARDS` submits the recipe's tasks (ARRAY: sbatch's --array list; SHARDS
# empty: the array is the whole run), one CPU each (so `dama tune gen --threads 1`), and
# prints the job's id. sbatch passes the environment above on to every task.
sbatch_gen() {
    SHARDS=$2 OUT="$work/slurm" sbatch --parsable --array="$1" --cpus-per-task=1 \
        --chdir="$work" --output="$dir/logs/%a.log" deploy/slurm/tune-gen.sh | cut -d';' -f1
}
# Waits until job $1's tasks have left the queue, then checks that every one completed.
# sbatch --wait would do as much, but it polls at growing intervals (here it returned 25 s
# after the last task had ended). There is no accounting database: the controller still
# holds the ended tasks (for MinJobAge, 300 s by default), and scontrol shows them.
wait_done() {
    local start=$SECONDS
    while [ -n "$(squeue -h -j "$1")" ]; do
        if [ $((SECONDS - start)) -gt 300 ]; then fail "job $1 still queued after 300 s"; fi
        sleep 0.5
    done
    local states
    states=$(scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c)
    if grep -v -q 'JobState=COMPLETED$' <<<"$states"; then
        fail "job $1's tasks did not all complete: $states"
    fi
}
submit() {
    local start=$SECONDS id
    id=$(sbatch_gen "1-$shards" "")
    wait_done "$id"
    # The controller's own times (to the second): the first task's start, the last one's end.
    local first last
    first=$(scontrol -o show job "$id" | grep -o 'StartTime=[^ ]*' | cut -d= -f2 | sort | head -1)
    last=$(scontrol -o show job "$id" | grep -o 'EndTime=[^ ]*' | cut -d= -f2 | sort | tail -1)
    local span=$(($(date -d "$last" +%s) - $(date -d "$first" +%s)))
    echo "array of $shards tasks: $((SECONDS - start)) s from submission," \
        "$span s from the first start to the last end"
}
submit
grep -h '^games' "$dir"/logs/*.log

# 1. The merge. A sample file is a 13-byte header (magic, version, variant) and then the
# games one after another with no count anywhere, so the shards of one run merge into one
# file by one header and every shard's games (`dama tune train s*.samples` reads the shards
# as they are, the same games).
for k in $(seq "$shards"); do
    cmp -s -n 13 "$work/slurm/s1.samples" "$work/slurm/s$k.samples" \
        || fail "s$k.samples has another header than s1.samples"
done
head -c 13 "$work/slurm/s1.samples" >"$work/merged.samples"
for k in $(seq "$shards"); do tail -c +14 "$work/slurm/s$k.samples" >>"$work/merged.samples"; done
# The whole run in one process, against the merged file: the same number of positions read
# by the trainer, and the same size (a game is 3 bytes and 15 a position).
"$dama" tune gen --games "$games" --nodes "$nodes" --random-plies 4 --seed "$seed" \
    --threads 1 --out "$work/whole.samples" >/dev/null
positions() {
    "$dama" tune train "$1" --epochs 1 --holdout 0 --threads 1 --out "$work/net.nnue" 2>&1 \
        | sed -n 's/^\([0-9]*\) training positions.*/\1/p'
}
merged=$(positions "$work/merged.samples")
whole=$(positions "$work/whole.samples")
echo "merged: $merged positions, $(wc -c <"$work/merged.samples") bytes;" \
    "whole run: $whole positions, $(wc -c <"$work/whole.samples") bytes"
if [ -z "$merged" ] || [ "$merged" != "$whole" ]; then
    fail "the merged shards are not the whole run"
fi
cmp -s <(wc -c <"$work/merged.samples") <(wc -c <"$work/whole.samples") \
    || fail "the merged shards and the whole run differ in size"

# 2. The same shards outside Slurm, one process after another, compared byte for byte.
local_run() {
    OUT="$work/local" SLURM_ARRAY_TASK_ID=$1 SLURM_ARRAY_TASK_COUNT=$shards \
        bash deploy/slurm/tune-gen.sh >/dev/null
}
start=$SECONDS
for k in $(seq "$shards"); do local_run "$k"; done
echo "the same $shards shards outside Slurm: $((SECONDS - start)) s"
for k in $(seq "$shards"); do
    cmp "$work/slurm/s$k.samples" "$work/local/s$k.samples" || fail "shard $k differs"
done
echo "the $shards shards made by Slurm and outside it are the same bytes"

# 3. Resuming: shard 2 deleted, the whole array submitted again. A task whose file is there
# says so and leaves it (same modification time); only task 2 plays.
stamps() { for k in $(seq "$shards"); do [ "$k" = 2 ] || stat -c %.9Y "$work/slurm/s$k.samples"; done; }
before=$(stamps)
rm "$work/slurm/s2.samples"
submit
[ "$before" = "$(stamps)" ] || fail "a finished shard was written again"
for k in $(seq "$shards"); do
    if [ "$k" = 2 ]; then
        grep -q '^games' "$dir/logs/$k.log" || fail "task 2 did not play its shard again"
    else
        grep -q 'is there' "$dir/logs/$k.log" || fail "task $k did not keep its shard"
    fi
done
cmp "$work/slurm/s2.samples" "$work/local/s2.samples" || fail "shard 2 played again differs"
echo "resubmitted with shard 2 deleted: only task 2 played, and its file is the same bytes"

# 4. A requeue, as when a task is preempted: shard 3 deleted and submitted alone (SHARDS set:
# the task id is the shard; `--array=3` alone would otherwise be a run of one shard), then
# requeued once its file is being written. Slurm kills the task, which leaves only its .tmp;
# the requeued task plays the shard again from its start.
rm "$work/slurm/s3.samples"
start=$SECONDS
id=$(sbatch_gen 3 "$shards")
state() { squeue -h -j "$id" -o %T; }
until [ -f "$work/slurm/s3.samples.tmp" ] && [ "$(state)" = RUNNING ]; do
    if [ $((SECONDS - start)) -gt 120 ]; then fail "task 3 did not start"; fi
    sleep 0.2
done
scontrol requeue "${id}_3"
until [ "$(state)" = PENDING ]; do
    if [ $((SECONDS - start)) -gt 120 ]; then fail "task 3 was not requeued"; fi
    sleep 0.2
done
if [ -f "$work/slurm/s3.samples" ]; then fail "the requeued task left a shard file"; fi
# A requeued batch job may start again only 2 minutes later (Slurm's own delay, for the
# node to clean up): released at once here.
scontrol update jobid="${id}_3" StartTime=now
wait_done "$id"
scontrol -o show job "$id" | grep -q 'Restarts=1 ' || fail "task 3 was not requeued once"
cmp "$work/slurm/s3.samples" "$work/local/s3.samples" || fail "shard 3 played again differs"
echo "shard 3 alone, requeued while playing: played again, the same bytes ($((SECONDS - start)) s)"

# 5. The match recipe (deploy/slurm/match.sh) the same way: its shards by Slurm and outside it
# are the same bytes, and merged by `dama pdn stats` they are the unsharded match's result.
# Players of a node budget on one thread, so the games do not depend on the machine's load.
start=$SECONDS
match_env=(FIRST=nodes:120 SECOND=nodes:60 GAMES=16 EXTRA="--egtb1 none --egtb2 none")
id=$(env "${match_env[@]}" OUT="$work/match-slurm" sbatch --parsable --array="1-$shards" \
    --cpus-per-task=1 --chdir="$work" --output="$dir/logs/match-%a.log" deploy/slurm/match.sh \
    | cut -d';' -f1)
wait_done "$id"
for k in $(seq "$shards"); do
    env "${match_env[@]}" OUT="$work/match-local" SLURM_ARRAY_TASK_ID="$k" \
        SLURM_ARRAY_TASK_COUNT="$shards" bash deploy/slurm/match.sh >/dev/null 2>&1 \
        || fail "match shard $k outside Slurm failed"
    cmp "$work/match-slurm/shard-$k-of-$shards.pdn" "$work/match-local/shard-$k-of-$shards.pdn" \
        || fail "match shard $k differs"
done
merged=$("$dama" pdn stats "$work"/match-slurm/*.pdn | grep '^wins')
whole=$("$dama" match nodes:120 nodes:60 --games 16 --seed "$seed" --egtb1 none --egtb2 none \
    --concurrency 1 2>/dev/null | grep '^wins')
[ "$merged" = "$whole" ] || fail "the match's shards give '$merged', the whole match '$whole'"
echo "match: $shards shards by Slurm and outside it the same bytes, merged the whole match" \
    "($merged; $((SECONDS - start)) s)"
