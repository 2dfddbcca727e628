#!/usr/bin/env bash
# A stand-in for a cluster's submit command, for testing the cluster path
# (snakemake-executor-plugin-cluster-generic) on one machine: runs the job
# script as a separate process in the background and prints its process id
# as the "job id".  The ids are also appended to $METAEVAL_SUBMITTED when set.
set -euo pipefail
jobscript="$1"
nohup bash "$jobscript" > "$jobscript.out" 2>&1 &
pid=$!
if [ -n "${METAEVAL_SUBMITTED:-}" ]; then echo "$pid" >> "$METAEVAL_SUBMITTED"; fi
echo "$pid"
