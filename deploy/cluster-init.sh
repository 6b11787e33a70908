#!/bin/sh
# Makes the six nodes of docker-compose.cluster.yml one Redis Cluster (three primaries,
# a replica each), unless they already are one (a restart of the deployment).
set -eu
if redis-cli -h redis-1 cluster info | grep -q '^cluster_state:ok'; then
  echo "the cluster exists"
  exit 0
fi
nodes=""
for name in redis-1 redis-2 redis-3 redis-4 redis-5 redis-6; do
  # redis-cli --cluster create takes addresses, not names.
  nodes="$nodes $(getent hosts "$name" | awk '{print $1}'):6379"
done
# shellcheck disable=SC2086
redis-cli --cluster create $nodes --cluster-replicas 1 --cluster-yes
