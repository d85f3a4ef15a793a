#!/bin/bash
# site.sh -- `fleettune-ctl site DIR` over N stored sweeps: the time to write the site, and the
# index page's first render in headless Chromium from file:// (navigation start -> index built,
# and -> next painted frame; median of RUNS cold loads).
# The sweeps are stored by bench/site_fill through the controller's own strategy, analysis and
# store (two-node sequential sweeps of PLANS plans, seeded passes, one day apart), so the
# index holds N rows and PLANS charts of N/PLANS runs each. No root, no devices, no agents.
# The index page marks when it is built (ft-site-ready), when that has been painted
# (ft-site-painted: a timer set in the next animation frame) and when the first screen's plan
# charts are drawn (ft-site-charts; the others are drawn as they scroll into view).
# usage: bench/site.sh [N=500] [RUNS=7] [PLANS=10]    (FT_BUILD_DIR defaults to ./build)
# Prints "RESULT site write ...", "RESULT site index first render ..." and the charts' line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export FT_SOURCE_DIR=${FT_SOURCE_DIR:-$(dirname "$here")}
export FT_BUILD_DIR=${FT_BUILD_DIR:-$FT_SOURCE_DIR/build}
. "$FT_SOURCE_DIR/tests/integration/lib.sh"
. "$FT_SOURCE_DIR/tests/browser/browser_lib.sh"
N=${1:-500}
RUNS=${2:-7}
PLANS=${3:-10}
FILL=$FT_BUILD_DIR/bench/site_fill

[ -x "$CTL_BIN" ] || it_skip "controller not built at $CTL_BIN"
[ -x "$FILL" ] || it_skip "bench/site_fill not built at $FILL"
bt_need_browser

db="$IT_TMP/ctl.db"
t0=$(date +%s.%N)
"$FILL" "$db" "$N" "$PLANS" 1 || exit 1
t1=$(date +%s.%N)
it_log "stored $N sweeps of $PLANS plans in $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s; db $(du -h "$db" | cut -f1)"

site="$IT_TMP/site"
t0=$(date +%s.%N)
"$CTL_BIN" site "$site" --db "$db" --web-root "$FT_SOURCE_DIR/web" 2>"$IT_TMP/site.err" || { cat "$IT_TMP/site.err" >&2; exit 1; }
t1=$(date +%s.%N)
sed 's/^/# /' "$IT_TMP/site.err"
write_s=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")
it_log "index.html $(du -h "$site/index.html" | cut -f1), the site $(du -sh "$site" | cut -f1) in $(ls "$site" | wc -l) files"

out="$IT_TMP/render.out"
node "$BT_DIR/render_bench.js" --file "$site/index.html" --mark ft-site-ready --rows '#site-index tbody tr' \
	--state site --runs "$RUNS" --expect-rows "$N" --then ft-site-painted,ft-site-charts | tee "$out" | sed 's/^/# index: /'
[ "${PIPESTATUS[0]}" = 0 ] || { echo "render bench failed" >&2; exit 1; }
set -- $(sed -n 's/^median ready_ms=\([0-9.]*\) .* ft-site-painted_ms=\([0-9.]*\) ft-site-charts_ms=\([0-9.]*\).*/\1 \2 \3/p' "$out")
max=$(sed -n 's/^run .* ft-site-painted_ms=\([0-9.]*\) .*/\1/p' "$out" | sort -n | tail -n 1)
echo "RESULT site write ($N sweeps, $PLANS plans): ${write_s} s"
echo "RESULT site index first render ($N sweeps): median ${1} ms to the index built, ${2} ms to its first paint (max ${max} ms; target < 1000 ms)"
echo "RESULT site first screen's charts drawn ($PLANS plans, $((N / PLANS)) runs each): median ${3} ms"
