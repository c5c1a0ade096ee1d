#!/usr/bin/env bash
# One shard of the self-play generation for training (`dama tune gen`) per Slurm array task;
# see docs/tuning.md ("The network evaluation") and docs/scale-out.md.
#
#   sbatch deploy/slurm/tune-gen.sh                   # 200 tasks: shards 1/200 .. 200/200
#   SHARDS=200 sbatch --array=17,42 deploy/slurm/tune-gen.sh   # shards 17/200 and 42/200 alone
#   dama tune train samples/s*.samples --out my.nnue  # once every task is done
#
# Shard K plays the games i with i mod N = K-1 of the whole run, so the shards together are
# the whole run. The settings come from the environment (sbatch passes it on): DAMA (the
# binary), GAMES (in the whole run), NODES (a move), PLIES (random plies after each opening),
# SEED, OUT (the samples folder), EXTRA (more `dama tune gen` options, split at spaces, such
# as `--egtb DIR` or `--variant spanish`), and SHARDS (N, for some shards alone: the task ids
# are then the shard numbers). tests/slurm/run.sh runs it on a one-node Slurm.
#SBATCH --job-name=dama-tune-gen
#SBATCH --array=1-200
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=02:00:00
#SBATCH --output=dama-tune-gen-%A_%a.log
set -euo pipefail

dama=${DAMA:-dama}
games=${GAMES:-200000}
nodes=${NODES:-1000}
plies=${PLIES:-4}
seed=${SEED:-30}
out=${OUT:-samples}
extra=${EXTRA-}

task=${SLURM_ARRAY_TASK_ID:?"not an array task: submit with sbatch (or set SLURM_ARRAY_TASK_ID)"}
if [ -n "${SHARDS-}" ]; then
    # Some shards alone (`SHARDS=200 sbatch --array=17,42 ...`): the task ids are the shard
    # numbers. Without SHARDS, an array of some tasks would be a run of that many shards.
    count=$SHARDS
    shard=$task
    if [ "$shard" -lt 1 ] || [ "$shard" -gt "$count" ]; then
        echo "task $task is not a shard of 1..$SHARDS: with SHARDS set, the task ids are the shards" >&2
        exit 2
    fi
else
    count=${SLURM_ARRAY_TASK_COUNT:?"SLURM_ARRAY_TASK_COUNT is not set"}
    # Shards count from 1 whatever the array's first index (--array=0-199 works too).
    shard=$((task - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
fi

mkdir -p "$out"
file="$out/s$shard.samples"
# A finished shard is kept: a requeued or repeated task has nothing to do. The file takes its
# name only when whole, so a task that fails or is preempted leaves nothing for the trainer
# to read; it is played again from its start.
if [ -f "$file" ]; then
    echo "shard $shard/$count: $file is there"
    exit 0
fi
# shellcheck disable=SC2086
"$dama" tune gen --games "$games" --nodes "$nodes" --random-plies "$plies" --seed "$seed" \
    --shard "$shard/$count" --threads "${SLURM_CPUS_PER_TASK:-1}" $extra --out "$file.tmp"
mv "$file.tmp" "$file"
