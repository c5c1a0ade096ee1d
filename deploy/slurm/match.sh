#!/usr/bin/env bash
# One shard of a large `dama match` per Slurm array task; see docs/scale-out.md.
#
#   sbatch deploy/slurm/match.sh                      # 20 tasks: shards 1/20 .. 20/20
#   SHARDS=20 sbatch --array=3 deploy/slurm/match.sh  # shard 3/20 alone (a failed one, again)
#   sbatch --dependency=afterok:<jobid> --wrap 'dama pdn stats results/shard-*.pdn'
#
# Every shard plays its share of the same match (the opening pairs p with p mod N = K-1 of
# the openings shuffled by SEED), so the merged PDNs are the whole match. The settings come
# from the environment (sbatch passes it on): DAMA (the binary), FIRST and SECOND (players),
# GAMES (in the whole match), SEED, OUT (the results folder), EXTRA (more `dama match`
# options, split at spaces), and SHARDS (N, for some shards alone: the task ids are then the
# shard numbers).
#SBATCH --job-name=dama-match
#SBATCH --array=1-20
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=04:00:00
#SBATCH --output=dama-match-%A_%a.log
set -euo pipefail

dama=${DAMA:-dama}
first=${FIRST:-level:hard}
second=${SECOND:-level:normal}
games=${GAMES:-2000}
seed=${SEED:-1}
out=${OUT:-results}
extra=${EXTRA---movetime 0.5}

task=${SLURM_ARRAY_TASK_ID:?"not an array task: submit with sbatch (or set SLURM_ARRAY_TASK_ID)"}
if [ -n "${SHARDS-}" ]; then
    # Some shards alone (`SHARDS=20 sbatch --array=3,7 ...`): the task ids are the shard
    # numbers. Without SHARDS, an array of some tasks would be a run of that many shards.
    count=$SHARDS
    shard=$task
    if [ "$shard" -lt 1 ] || [ "$shard" -gt "$count" ]; then
        echo "task $task is not a shard of 1..$SHARDS: with SHARDS set, the task ids are the shards" >&2
        exit 2
    fi
else
    count=${SLURM_ARRAY_TASK_COUNT:?"SLURM_ARRAY_TASK_COUNT is not set"}
    # Shards count from 1 whatever the array's first index (--array=0-19 works too).
    shard=$((task - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
fi

mkdir -p "$out"
file="$out/shard-$shard-of-$count.pdn"
# The file appears under its name only once the shard is complete: a task that fails or is
# preempted leaves no partial PDN for the merge to count; run again (a requeued task), it goes
# on from the games the .part file holds (--resume).
# shellcheck disable=SC2086
"$dama" match "$first" "$second" --games "$games" --seed "$seed" \
    --shard "$shard/$count" --concurrency "${SLURM_CPUS_PER_TASK:-1}" \
    $extra --pdn "$file.part" --resume
mv "$file.part" "$file"
