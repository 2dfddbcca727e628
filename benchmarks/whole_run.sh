#!/bin/bash
# The whole run from nothing, then a no-op rerun, with a CPU spin test beside
# them (benchmarks/README.md). Run two checkouts alternately, the same hour:
#   bash benchmarks/whole_run.sh /path/to/checkout_a a1; bash benchmarks/whole_run.sh /path/to/checkout_b b1; ...
# Each checkout's own src/ is used (PYTHONPATH); DATA_DIR defaults to ../shared/data. A third argument: a config
# file to run instead of the checkout's config/config.yaml (an absolute path).
set -u
wt=$(cd "$1" && pwd); label=$2; data=${DATA_DIR:-$(cd "$wt/.." && pwd)/shared/data}
cfg=()
if [ $# -ge 3 ]; then cfg=(--configfile "$3"); fi
cd "$wt" && rm -rf results .snakemake
# the checkout's modules compiled first, as an install or a first import leaves them: with PYTHONDONTWRITEBYTECODE
# set (as on this machine) every job would compile them again (0.2 to 0.3 s each), in both versions alike
python3 -m compileall -q src > /dev/null
spin=$( { /usr/bin/time -f %e python3 -c "s=0
for i in range(20_000_000): s+=i" ; } 2>&1 )
s=$(date +%s.%N)
PYTHONPATH=$wt/src snakemake --cores 2 "${cfg[@]}" --config data_dir="$data" > "/tmp/whole_run_$label.log" 2>&1
rc=$?
e=$(date +%s.%N)
PYTHONPATH=$wt/src snakemake --cores 2 "${cfg[@]}" --config data_dir="$data" > "/tmp/noop_$label.log" 2>&1
e2=$(date +%s.%N)
echo "$label rc=$rc spin=${spin}s whole=$(echo "$e - $s" | bc)s noop=$(echo "$e2 - $e" | bc)s" \
     "nothing_to_do=$(grep -c 'Nothing to be done' "/tmp/noop_$label.log")"
