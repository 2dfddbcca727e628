#!/bin/bash
# Start-up of the library and of the command line, two checkouts alternately (benchmarks/README.md, "Start-up"):
#   bash benchmarks/startup.sh /path/to/checkout_a /path/to/checkout_b [rounds]
# Each round times, for each checkout (its own src/ first on PYTHONPATH), the median of 7 runs of
# `python -c "import metaeval"` and of `python -m metaeval --help`, with a CPU spin test beside them.
set -u
a=$(cd "$1" && pwd); b=$(cd "$2" && pwd); rounds=${3:-3}
py=${PYTHON:-python3}
# both compiled first: with PYTHONDONTWRITEBYTECODE set (as on this machine) a checkout without __pycache__ would
# compile every module at every start, and the comparison would time the compiler
for wt in "$a" "$b"; do "$py" -m compileall -q "$wt/src" > /dev/null; done
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
t() {  # the wall time of one command, in ms
  local s e; s=$(date +%s%N); "$@" > /dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
}
for r in $(seq "$rounds"); do
  for wt in "$a" "$b"; do
    spin=$( { /usr/bin/time -f %e "$py" -c "s=0
for i in range(20_000_000): s+=i" ; } 2>&1 )
    imp=$(for i in 1 2 3 4 5 6 7; do PYTHONPATH=$wt/src t "$py" -c "import metaeval"; done | median)
    hlp=$(for i in 1 2 3 4 5 6 7; do PYTHONPATH=$wt/src t "$py" -m metaeval --help; done | median)
    echo "round $r $(basename "$wt") ($(git -C "$wt" rev-parse --short HEAD)): spin ${spin}s, import ${imp} ms, --help ${hlp} ms"
  done
done
