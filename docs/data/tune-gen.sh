#!/bin/sh
# Resumable, sharded self-play generation for the network evaluation: shard K of N goes to gen/sK.samples
# (written under a temporary name, renamed when whole); a shard already there is skipped.
# usage: tune-gen.sh DAMA N GAMES NODES [SEED [LAST [EXTRA...]]]
#   plays shards 1..LAST (default N) of N with `dama tune gen --seed SEED` (default 30);
#   EXTRA: more `dama tune gen` options, such as `--egtb DIR` (a relative DIR is taken from
#   this script's folder).
# RANDOM_PLIES (environment, default 4): random plies after each built-in opening.
DAMA=${1:-./dama-gen}; N=${2:-200}; GAMES=${3:-200000}; NODES=${4:-1000}; SEED=${5:-30}; LAST=${6:-$N}
shift $(( $# < 6 ? $# : 6 ))
cd "$(dirname "$0")" && mkdir -p gen
k=1
while [ $k -le $LAST ]; do
  f=gen/s$k.samples
  if [ ! -f $f ]; then
    echo "$(date +%T) shard $k/$N" >&2
    nice -n 19 $DAMA tune gen --games $GAMES --nodes $NODES --random-plies ${RANDOM_PLIES:-4} --threads 2 \
      --seed $SEED --shard $k/$N "$@" --out $f.tmp >> gen.log 2>>gen.err && mv $f.tmp $f || exit 1
  fi
  k=$((k+1))
done
