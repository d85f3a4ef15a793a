#!/bin/bash
# it_deploy.sh -- the deployment files hold together: the unit's settings (it_systemd.sh verifies,
# scores and runs it), cmake --install lays out the unit and man pages, and the
# DaemonSet parses as YAML (Debian's python3-yaml) with the structure the agent needs;
# kubeconform too if it is installed.
. "$(dirname "$0")/lib.sh"
# The checks of the built binaries are part of it: a missing build fails.
it_need_built "$AGENT_BIN" "$CTL_BIN"

UNIT=$FT_SOURCE_DIR/deploy/fleettune-agent.service
ENVF=$FT_SOURCE_DIR/deploy/fleettune-agent.env
DS=$FT_SOURCE_DIR/deploy/daemonset.yaml
command -v jq >/dev/null || it_skip "jq not installed"

# unit_value KEY: the values of KEY= in the unit, one a line.
unit_value() { sed -n "s/^$1=//p" "$UNIT"; }

# --- systemd unit ---
it_check "unit exists" [ -f "$UNIT" ]
it_check "Type is simple or notify" grep -Eqx 'Type=(simple|notify)' "$UNIT"
exec_start=$(unit_value ExecStart)
it_check "ExecStart runs the installed agent" [ "${exec_start%% *}" = /usr/local/bin/fleettune-agent ]
it_check "ExecStart uses the state directory" grep -q -- '--state-dir /var/lib/fleettune' <<<"$exec_start"
it_eq "StateDirectory" fleettune "$(unit_value StateDirectory)"
it_eq "Restart" on-failure "$(unit_value Restart)"
it_check "ProtectSystem is full or strict" grep -Eqx 'ProtectSystem=(full|strict)' "$UNIT"
if grep -qx 'ProtectSystem=strict' "$UNIT"; then
	it_check "ProtectSystem=strict keeps /sys writable" grep -q '^ReadWritePaths=.*/sys' "$UNIT"
fi
for k in PrivateTmp NoNewPrivileges ProtectHome; do
	it_eq "$k" yes "$(unit_value "$k")"
done
# These would make /sys read-only, or hide the devices to benchmark.
for k in PrivateDevices ReadOnlyPaths InaccessiblePaths; do
	it_eq "$k is not set (it would break sysfs writes or raw devices)" "" "$(unit_value "$k")"
done
# ProtectKernelTunables= makes all of /sys read-only: the devices' attributes and the delegated
# cgroup subtree must be given back.
if [ "$(unit_value ProtectKernelTunables)" = yes ]; then
	for p in /sys/devices /sys/fs/cgroup; do
		it_check "ProtectKernelTunables=yes with $p in ReadWritePaths=" \
			grep -qw -- "$p" <<<"$(unit_value ReadWritePaths)"
	done
fi
it_check "installed for multi-user.target" grep -qx 'WantedBy=multi-user.target' "$UNIT"
for v in $(grep -o '\${\?[A-Z_]*}\?' <<<"$exec_start" | tr -d '${}'); do
	it_check "ExecStart variable $v has a default in the unit" grep -q "^Environment=$v=" "$UNIT"
	it_check "ExecStart variable $v is set in fleettune-agent.env" grep -q "^$v=" "$ENVF"
done
it_check "fleettune-agent.env has only comments and VAR=value lines" \
	bash -c '! grep -Ev "^(#.*|[A-Z_]+=.*|)$" "$1"' _ "$ENVF"

# systemd-analyze verify and security, and the unit running the agent: it_systemd.sh.
if [ -x "$AGENT_BIN" ]; then
	# The agent accepts the flags the unit and the env file give it.
	env_args=$(sed -n 's/^FLEETTUNE_ARGS=//p' "$ENVF")
	it_check "the agent knows every flag of fleettune-agent.env" bash -c '
		for f in $2; do case $f in --*) "$1" --help | grep -q -- "^  $f " || exit 1 ;; esac; done' \
		_ "$AGENT_BIN" "$env_args"
fi

# --- cmake --install: the unit and the man pages ---
if [ -x "$AGENT_BIN" ]; then
	inst=$IT_TMP/install
	if DESTDIR=$inst cmake --install "$FT_BUILD_DIR" --prefix /usr/local >"$IT_TMP/install.log" 2>&1; then
		it_check "cmake --install installs the unit" \
			cmp -s "$UNIT" "$inst/usr/local/lib/systemd/system/fleettune-agent.service"
		it_check "cmake --install installs fleettune-agent.8" \
			[ -f "$inst/usr/local/share/man/man8/fleettune-agent.8" ]
		it_check "cmake --install installs fleettune-ctl.1" \
			[ -f "$inst/usr/local/share/man/man1/fleettune-ctl.1" ]
		it_check "cmake --install installs the alerting rules" \
			cmp -s "$FT_SOURCE_DIR/deploy/prometheus/fleettune-rules.yaml" \
			"$inst/usr/local/share/fleettune/prometheus/fleettune-rules.yaml"
	else
		cat "$IT_TMP/install.log"
		it_fail "cmake --install into a DESTDIR"
	fi
fi
if command -v man >/dev/null; then
	for page in docs/fleettune-agent.8 docs/fleettune-ctl.1; do
		it_check "$page renders without warnings" bash -c \
			'out=$(MANWIDTH=100 man --warnings -l "$1" 2>&1 >/dev/null); [ -z "$out" ] || { echo "$out"; false; }' \
			_ "$FT_SOURCE_DIR/$page"
	done
fi
if [ -x "$AGENT_BIN" ]; then
	for f in $("$AGENT_BIN" --help | grep -o '^  --[a-z-]*'); do
		it_check "fleettune-agent.8 documents $f" grep -q -- "${f//-/\\\\-}" "$FT_SOURCE_DIR/docs/fleettune-agent.8"
	done
fi

# --- DaemonSet ---
PY=/usr/bin/python3
"$PY" -c 'import yaml' 2>/dev/null || it_skip "python3-yaml (Debian) not installed: DaemonSet not checked"
DSJ=$IT_TMP/daemonset.json
if "$PY" -c 'import json, sys, yaml; json.dump(list(yaml.safe_load_all(open(sys.argv[1]))), sys.stdout)' \
	"$DS" >"$DSJ" 2>"$IT_TMP/yaml.err"; then
	it_pass "daemonset.yaml parses as YAML"
else
	it_fail "daemonset.yaml parses as YAML: $(cat "$IT_TMP/yaml.err")"
	it_done
fi
q() { jq -r "[.[] | select(.kind == \"DaemonSet\")][0] | $1" "$DSJ"; }
qc() { q ".spec.template.spec.containers[0] | $1"; }
it_eq "a DaemonSet" apps/v1 "$(q .apiVersion)"
it_eq "selector matches the pod labels" true \
	"$(q '.spec.selector.matchLabels as $m | .spec.template.metadata.labels | contains($m)')"
it_eq "privileged" true "$(qc .securityContext.privileged)"
it_eq "/sys is a hostPath" /sys "$(q '.spec.template.spec.volumes[] | select(.name == "sys") | .hostPath.path')"
it_eq "/sys is mounted read-write at /sys" "/sys false" \
	"$(qc '.volumeMounts[] | select(.name == "sys") | "\(.mountPath) \(.readOnly // false)"')"
it_eq "state dir is a hostPath" /var/lib/fleettune \
	"$(q '.spec.template.spec.volumes[] | select(.name == "state") | .hostPath.path')"
args=$(qc '.args | join(" ")')
state_mount=$(qc '.volumeMounts[] | select(.name == "state") | .mountPath')
it_check "--state-dir is the state mount ($state_mount)" grep -q -- "--state-dir $state_mount" <<<"$args"
secret=$(q '.spec.template.spec.volumes[] | select(.secret) | .secret.secretName')
it_eq "token comes from a Secret" fleettune-token "$secret"
tok_vol=$(q '.spec.template.spec.volumes[] | select(.secret) | .name')
tok_dir=$(qc ".volumeMounts[] | select(.name == \"$tok_vol\") | .mountPath")
tok_file=$(q '.spec.template.spec.volumes[] | select(.secret) | .secret.items[0].path')
it_check "--token-file is the Secret's file ($tok_dir/$tok_file)" \
	grep -q -- "--token-file $tok_dir/$tok_file" <<<"$args"
# The agent refuses a token file group or others may read or write (Kubernetes' default is 0644).
tok_mode=$(q '.spec.template.spec.volumes[] | select(.secret) | .secret.items[0].mode // .secret.defaultMode // 420')
it_eq "the Secret's token file is private to its owner (mode $(printf '%o' "$tok_mode"))" 0 \
	"$((tok_mode & 8#066))"
it_eq "readiness probe path" /api/v1/health "$(qc .readinessProbe.httpGet.path)"
probe_port=$(qc .readinessProbe.httpGet.port)
port=$(PROBE_PORT=$probe_port qc '.ports[] | select(.name == env.PROBE_PORT or
	(.containerPort | tostring) == env.PROBE_PORT) | .containerPort')
it_check "readiness probe port is the agent's listen port ($port)" \
	grep -q -- "--listen 0.0.0.0:$port\( \|$\)" <<<"${port:+$args}"
it_eq "runs fleettune-agent" fleettune-agent "$(qc '.command[0]')"
if [ -x "$AGENT_BIN" ]; then
	for f in $(qc '.args[]' | grep '^--'); do
		it_check "the agent knows $f" grep -q -- "^  $f " <("$AGENT_BIN" --help)
	done
fi
it_eq "headless Service for pod discovery" None \
	"$(jq -r '.[] | select(.kind == "Service") | .spec.clusterIP' "$DSJ")"

if command -v kubeconform >/dev/null; then
	it_check "kubeconform accepts daemonset.yaml" kubeconform -strict -summary "$DS"
else
	it_log "kubeconform not installed: schema check of the manifests skipped"
fi
it_done
