# Sourced by the bench scripts that compare CPU time and peak memory of
# commands run in the same session. Needs $work (a scratch directory) set.
# These machines are noisy: every figure is the median of REPEAT runs (default 3).
repeat=${REPEAT:-3}
measure() { # command... -> prints "cpu_s maxrss_kb", medians over $repeat runs
  : > "$work/times"
  for _ in $(seq "$repeat"); do
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
    read -r u s m < "$work/time"
    echo "$(echo "$u + $s" | bc -l) $m" >> "$work/times"
  done
  local cpu mem
  cpu=$(cut -d' ' -f1 "$work/times" | sort -g | sed -n "$(((repeat + 1) / 2))p")
  mem=$(cut -d' ' -f2 "$work/times" | sort -g | sed -n "$(((repeat + 1) / 2))p")
  echo "$cpu $mem"
}
