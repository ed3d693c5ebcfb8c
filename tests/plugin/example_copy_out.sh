#!/usr/bin/env bash
# examples/plugins/ copied out of the tree and built against the header alone, as a user would;
# then its conformance run passes and its planted bugs fail naming their causes.
# Usage: example_copy_out.sh SOURCE_DIR BNSCOPE_CLI
set -euo pipefail
src=$1 cli=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/examples/plugins" "$work/plugins"
cmake -S "$work/plugins" -B "$work/build" -DBNSCOPE_INCLUDE_DIR="$src/include" >/dev/null
cmake --build "$work/build" >/dev/null
"$cli" conformance --plugin "$work/build/bnscope_example_c.so" --backend example-c \
  --junit "$work/junit.xml" >"$work/ok.txt"
grep -q 'failures="0" errors="0"' "$work/junit.xml"
for bug in reserve:reserve-convention layout:layout-swapped; do
  name=${bug%%:*} cause=${bug#*:}
  if "$cli" conformance --plugin "$work/build/bnscope_example_c_bug_$name.so" \
      --backend "example-c-bug-$name" --filter "GradV3 NCHW training variance float32" \
      >"$work/$name.txt"; then
    echo "the planted $name bug passed its conformance run" >&2
    exit 1
  fi
  grep -q "likely cause: $cause" "$work/$name.txt" || {
    echo "the planted $name bug's failures do not name $cause:" >&2
    cat "$work/$name.txt" >&2
    exit 1
  }
done
echo "example plugins: built out of tree, example-c conforms, planted bugs named"
