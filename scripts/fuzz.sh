#!/usr/bin/env bash
# libFuzzer on the parsers an upstream model's output reaches (issue 25): the citation markers
# of a reply (Fuzz/CitationMarkers) and the event stream a model server sends (Fuzz/ServerSentEvents).
# Each target is its harness compiled with swiftc together with the exact source files it tests
# (listed in Fuzz/<target>/sources; their `import Griot…` lines dropped, as they are one module
# here), with -sanitize=fuzzer,address: seconds to build, not a SwiftPM build.
#
#   scripts/fuzz.sh          # 60 seconds per target
#   scripts/fuzz.sh 600      # longer
#   scripts/fuzz.sh 60 ServerSentEvents
#
# Hostile inputs too large to commit (a 1 MiB line, 100,000 "[" then "]") are made here and run
# once; then inputs of up to 8 KiB are fuzzed (larger ones cost more than they find), starting from the committed seeds
# (Fuzz/<target>/seeds); what the fuzzer finds is kept in .build-fuzz/<target>/corpus.
# Prints each target's executions and time; exits non-zero if any target crashed, timed out or
# ran out of memory, leaving the input in .build-fuzz/<target>/crash-* (replay: binary + file).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(CitationMarkers ServerSentEvents)
failed=0
for target in "${targets[@]}"; do
    work=".build-fuzz/$target"
    mkdir -p "$work/src" "$work/corpus"
    sources=()
    while read -r source; do
        [ -n "$source" ] || continue
        sed '/^import Griot/d' "$source" > "$work/src/$(basename "$source")"
        sources+=("$work/src/$(basename "$source")")
    done < "Fuzz/$target/sources"
    # -I Sources/CJSONC: the chunk reader's json-c module (its module map links libjson-c).
    swiftc -sanitize=fuzzer,address -parse-as-library -O -wmo -module-name GriotFuzz \
        -I Sources/CJSONC "${sources[@]}" "Fuzz/$target/main.swift" -o "$work/fuzz" 2> "$work/build.log" \
        || { cat "$work/build.log" >&2; exit 1; }
    # Too large to commit, and too large to mutate quickly, so made here and run once each before
    # fuzzing: a 1 MiB line, and 100,000 "[" before one "]".
    mkdir -p "$work/hostile"
    head -c 1048576 /dev/zero | tr '\0' 'a' | sed 's/^/data: /' > "$work/hostile/1mib-line"
    { head -c 100000 /dev/zero | tr '\0' '['; printf ']'; } > "$work/hostile/100k-opens"
    log="$work/run.log"
    status=0
    "$work/fuzz" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" "$work/hostile/"* > "$log" 2>&1 || status=$?
    # -timeout: one input taking 10 s is a finding (a quadratic path), as is 2 GB of memory.
    [ "$status" -ne 0 ] || "$work/fuzz" "$work/corpus" "Fuzz/$target/seeds" -max_total_time="$seconds" -max_len=8192 \
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/" -print_final_stats=1 >> "$log" 2>&1 || status=$?
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    time="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)"
    if [ "$status" -ne 0 ]; then
        failed=1
        grep -E "ERROR|SUMMARY|Fatal error|Test unit written|==[0-9]+==" "$log" | head -n 20 >&2 || true
        echo "fuzz $target: FAILED (exit $status) after ${runs:-?} executions; log $log" >&2
    else
        hostile="$(sed -n 's|^Executed .*/hostile/\(.*\) in \([0-9]*\) ms|\1 \2 ms|p' "$log" | paste -sd, - | sed 's/,/, /g')"
        echo "fuzz $target: ${runs:-?} executions in ${time:-?} s, 0 crashes (hostile inputs run once: $hostile)"
    fi
done
exit "$failed"
