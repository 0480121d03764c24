# Sourced: run_with_progress LABEL LOG CMD... runs CMD with its output in LOG and prints a line
# of progress at least every 30 seconds (the newest "[n/N] ..." build step, or pip's or apt's
# newest line), so that a long install never sits silent. On failure it prints the end of LOG
# and returns CMD's status.
run_with_progress() {
  local label=$1 log=$2
  shift 2
  mkdir -p "$(dirname "$log")"
  : > "$log"
  "$@" > "$log" 2>&1 &
  local pid=$! start=$SECONDS last_print=$SECONDS last_line="" line
  while kill -0 "$pid" 2> /dev/null; do
    sleep 2
    # The newest build step ([12/80] Building CXX object ...), else the newest line.
    line=$(grep -aoE '\[[0-9]+/[0-9]+\] [^ ]+ [^ ]+ [^ ]+ [^ ]+' "$log" | tail -n 1 || true)
    [ -n "$line" ] || line=$(tail -n 1 "$log" | cut -c1-100)
    if { [ -n "$line" ] && [ "$line" != "$last_line" ] && ((SECONDS - last_print >= 10)); } ||
      ((SECONDS - last_print >= 30)); then
      printf '   %s: %ds  %s\n' "$label" $((SECONDS - start)) "${line:-...}"
      last_line=$line
      last_print=$SECONDS
    fi
  done
  local rc=0
  wait "$pid" || rc=$?
  if ((rc != 0)); then
    tail -n 200 "$log"
    echo "== $label failed (exit $rc); the whole log is $log"
  else
    echo "   $label: done in $((SECONDS - start)) s"
  fi
  return "$rc"
}
