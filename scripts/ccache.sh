# Sourced by scripts/test and scripts/fuzz: compile through ccache when it is
# installed, so a machine that has built the project before, in any folder,
# compiles only what changed. Without ccache the builds are as before.
#
# Why hits survive a new clone folder (CI clones into a different folder on
# every run; ccache's cache lives in ~/.cache/ccache):
# - CCACHE_BASEDIR: ccache rewrites the absolute paths of the command line
#   (-I, the source file) under this folder to relative ones before hashing
#   and compiling.
# - CCACHE_NOHASHDIR: with -g (the sanitizer builds' -g1 line tables) ccache
#   otherwise hashes the working directory. The line tables then name the
#   folder of whichever clone filled the cache; file names and lines, which
#   the sanitizers' reports print, are still right.
# - crawl_relocate_unity: CMake 3.25's unity sources #include each source by
#   its absolute path (UNITY_BUILD_RELOCATABLE is CMake 3.32), which would
#   make every batch a miss; it rewrites them to relative paths.
# - No compile command holds a path of the clone in a -D: the tests' paths
#   (CRAWL_SOURCE_DIR ...) are defined in one generated file
#   (tests/support/test_paths.h); before that, 13 of the 25 test batches
#   missed in every new clone.
# The cache (default 5 GB, compressed; a plain build of this tree takes ~70 MB)
# is shared with every other build on the machine; `ccache -s` shows it.

crawl_ccache_args=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$(pwd -P) CCACHE_NOHASHDIR=1
  crawl_ccache_args=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# crawl_relocate_unity <build dir>: after `cmake -S . -B <build dir>`, rewrites
# the unity sources' `#include "/abs/source/dir/x.cc"` to a path relative to
# the unity file. A later reconfigure writes them back (CMake compares and
# rewrites): then only the cache misses, the build is the same.
crawl_relocate_unity() {
  local dir=$1 src f rel
  src=$(pwd -P)
  find "$dir" -path '*/Unity/unity_*.c*' -type f | while read -r f; do
    rel=$(realpath --relative-to="$(dirname "$(realpath "$f")")" "$src")
    sed -i "s|^#include \"$src/|#include \"$rel/|" "$f"
  done
}

# crawl_ccache_report <build dir>: the hits and misses of this build's
# compiles (its own stats log: other builds on the machine share the cache).
crawl_ccache_start() {
  command -v ccache >/dev/null || return 0
  export CCACHE_STATSLOG=$PWD/$1/ccache-stats.log
  rm -f "$CCACHE_STATSLOG"
}
crawl_ccache_report() {
  command -v ccache >/dev/null && [ -f "${CCACHE_STATSLOG:-}" ] || return 0
  ccache --show-log-stats | awk -v what="$1" '
    /^ *Hits:/ { h = $2 } /^ *Misses:/ { m = $2 } /^ *Direct:/ { d = $2 }
    END { printf "== ccache: %s: %d compiles, %d hits (%d direct), %d misses\n", what, h + m, h, d, m }'
}
