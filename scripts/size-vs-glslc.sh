#!/usr/bin/env bash
# The SPIR-V a stripped build ships against `glslc -Os`, summed per file
# over a GLSL tree (issue 30: names kept by --strip-debug). Figures go in
# docs/size.md, "Names at run time".
#
#   scripts/size-vs-glslc.sh TREE [TARGET_ENV] [path/to/cargo-smolv]
#
# Builds TREE three times into a temporary directory: `--strip-debug`,
# `--strip-debug --keep-interface-names`, and without stripping. For each,
# sums the SPIR-V bytes of the GLSL modules the build shipped (what the
# embedded set decodes to, from the manifest). Then runs
# `glslc -Os --target-env=TARGET_ENV` on the source of each of those
# modules (glslc strips names at -Os) and sums the outputs. Modules that
# the build could not compile are left out of both sums; .spv files in the
# tree too. It also prints what the embedded set stores, for the whole
# tree (.spv files included), as the build packed it. Needs glslc and python3.
set -euo pipefail
tree=${1:?usage: scripts/size-vs-glslc.sh TREE [TARGET_ENV] [cargo-smolv]}
env=${2:-vulkan1.3}
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${3:-$root/target/debug/cargo-smolv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build() { # $1: output name, then the flags
  local out=$1
  shift
  # --keep-going is the CLI's default: shaders that fail are reported and left out.
  "$cli" smolv build "$tree" -o "$work/$out" --target-env "$env" --cache-dir "$work/cache" "$@" \
    >/dev/null 2>"$work/$out.log" || true
  test -f "$work/$out/smolv/manifest.json" || { cat "$work/$out.log" >&2; exit 1; }
}
build stripped --strip-debug
build names --strip-debug --keep-interface-names
build debug

python3 - "$work" "$env" <<'PY'
import json, os, subprocess, sys
work, env = sys.argv[1], sys.argv[2]
stored = {}
def shipped(out):
    manifest = json.load(open(os.path.join(work, out, "smolv", "manifest.json")))
    modules = [m for m in manifest["modules"] if m["recipe"]["job"]["language"] == "glsl"]
    embedded = manifest["embedded"]
    stored[out] = f'{embedded["codec"]} ({embedded["layout"]}), {embedded["stored_bytes"]:,} B'
    return {m["source"]: m["embedded"]["spirv_bytes"] for m in modules}
stripped, names, debug = shipped("stripped"), shipped("names"), shipped("debug")
glslc = 0
for source in sorted(stripped):
    spv = os.path.join(work, "glslc.spv")
    subprocess.run(["glslc", "-Os", f"--target-env={env}", source, "-o", spv], check=True)
    glslc += os.path.getsize(spv)
def row(what, total, out=None):
    line = f"{what:<38} {total:>10,} B  {100 * (total - glslc) / glslc:+5.1f}%"
    print(line + (f"  embedded set: {stored[out]}" if out else ""))
print(f"{len(stripped)} GLSL modules, --target-env {env}; SPIR-V shipped, against glslc -Os")
row("glslc -Os, per file", glslc)
row("--strip-debug", sum(stripped.values()), "stripped")
row("--strip-debug --keep-interface-names", sum(names.values()), "names")
row("no stripping", sum(debug.values()), "debug")
PY
