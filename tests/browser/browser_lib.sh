# browser_lib.sh -- helpers for tests/browser/bt_*.sh: skip unless Chromium and Node are here,
# install playwright-core from package-lock.json, post real fio jobs to an agent.
# Source it after tests/integration/lib.sh.

BT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BT_SHOTS=${BT_SHOTS:-$FT_BUILD_DIR/screenshots}
BT_CHROMIUM=${FT_CHROMIUM:-/usr/bin/chromium}
export FT_CHROMIUM=$BT_CHROMIUM

# bt_need_browser: skip unless Chromium, node and npm exist; then make sure playwright-core is
# installed in tests/browser (npm ci from the lockfile, once).
bt_need_browser() {
	[ -x "$BT_CHROMIUM" ] || it_skip "Chromium not installed at $BT_CHROMIUM (apt-get install chromium)"
	command -v node >/dev/null || it_skip "node not installed"
	command -v npm >/dev/null || it_skip "npm not installed"
	command -v jq >/dev/null || it_skip "jq not installed"
	# One install at a time when ctest runs tests in parallel.
	exec 9>"$BT_DIR/.npm-install.lock"
	flock 9
	if [ ! -f "$BT_DIR/node_modules/playwright-core/package.json" ] ||
		! cmp -s "$BT_DIR/package-lock.json" "$BT_DIR/node_modules/.package-lock.json.ft"; then
		it_log "npm ci in $BT_DIR"
		(cd "$BT_DIR" && npm ci --no-audit --no-fund --loglevel=error) >"$IT_TMP/npm.log" 2>&1 || {
			cat "$IT_TMP/npm.log" >&2
			flock -u 9
			it_skip "npm ci failed (no npm registry?)"
		}
		cp "$BT_DIR/package-lock.json" "$BT_DIR/node_modules/.package-lock.json.ft"
	fi
	flock -u 9
	exec 9>&-
	mkdir -p "$BT_SHOTS"
}

# bt_node SCRIPT ARGS...: run a checker; its "ok"/"not ok" lines count into this test.
bt_node() {
	local out rc line
	out="$IT_TMP/node.out"
	node "$BT_DIR/$1" "${@:2}" >"$out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) it_pass "${line#ok - }" ;;
		"not ok - "*) it_fail "${line#not ok - }" ;;
		*" passed, "*" failed") ;;
		*) echo "$line" ;;
		esac
	done <"$out"
	[ "$rc" = 0 ] || [ "$IT_FAILS" -gt 0 ] || it_fail "$1 exited $rc"
}

# bt_job_post URL TOKEN BODY: POST a job; prints its id.
bt_job_post() {
	it_http POST "$1/api/v1/jobs" "$2" "$3"
	if [ "$HTTP_STATUS" != 202 ]; then
		echo "POST /api/v1/jobs: HTTP $HTTP_STATUS $HTTP_BODY" >&2
		return 1
	fi
	echo "$HTTP_BODY" | jq -r .id
}

# bt_job_state URL TOKEN ID: prints the job's state.
bt_job_state() {
	it_http GET "$1/api/v1/jobs/$3" "$2"
	echo "$HTTP_BODY" | jq -r .state
}

# bt_jobs_wait URL TOKEN TIMEOUT_S ID...: wait until every job has finished; 1 on timeout.
bt_jobs_wait() {
	local url=$1 tok=$2 t=$3 id st end
	shift 3
	end=$((SECONDS + t))
	for id in "$@"; do
		while :; do
			st=$(bt_job_state "$url" "$tok" "$id")
			case "$st" in
			succeeded | failed | cancelled | interrupted) break ;;
			esac
			[ $SECONDS -lt $end ] || { echo "# job $id still $st after ${t}s" >&2; return 1; }
			sleep 0.3
		done
		[ "$st" = succeeded ] || {
			it_http GET "$url/api/v1/jobs/$id" "$tok"
			echo "# job $id ended $st: $HTTP_BODY" >&2
		}
	done
}

# bt_fio_body DEV LOOPS PARAMS_JSON LABELS_JSON: a short real fio job on the raw loop device.
bt_fio_body() {
	jq -cn --arg dev "$1" --argjson loops "$2" --argjson params "$3" --argjson labels "$4" '{
		device: $dev, engine: "fio",
		fio: {rw: "randwrite", bs: "64k", ioengine: "libaio", direct: true, iodepth: 8, numjobs: 1,
		      size: "32m", runtime_s: 1, time_based: true, rate_iops: 1024},
		loops: $loops, params: $params, labels: $labels}'
}
