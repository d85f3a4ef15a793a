#!/bin/bash
# it_ctl_nodes_from.sh -- a plan's nodes from the lists fleets keep, each file written here for
# two real agents: a hosts file (host:port device), an Ansible INI inventory (a group, group
# and host variables, a relative token file), an Ansible YAML inventory (a real sweep with it,
# the stored plan with the nodes written out), kubectl's pod JSON (pod IPs, the api port, the
# device label); and the errors: a host without a device, a line in no format, a missing
# group, each naming the file and line, with nothing changed on the agents.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ctl_lib.sh"

it_need_root_sysfs
it_need_built "$CTL_BIN"
command -v fio >/dev/null || it_skip "fio not installed"
# One token for the fleet, as a DaemonSet's Secret gives every pod.
mkdir -p "$IT_TMP/lists"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$IT_TMP/lists/token"
chmod 600 "$IT_TMP/lists/token"
A_DEV=$(it_loop_create 96M)
B_DEV=$(it_loop_create 96M)
it_agent_start node1 --allow-device "$A_DEV" --token-file "$IT_TMP/lists/token" || exit 1
it_agent_start node2 --allow-device "$B_DEV" --token-file "$IT_TMP/lists/token" || exit 1
P1=${node1_URL##*:} P2=${node2_URL##*:}
CTL_DB=$IT_TMP/ctl.db
A_ORIG="$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
B_ORIG="$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"

# plan FILE NODES_FROM_JSON: a one-axis plan whose nodes come from NODES_FROM_JSON.
plan() {
	cat >"$1" <<PLAN
{
  "name": "it nodes_from",
  "nodes_from": $2,
  "baseline": {"nr_requests": 128},
  "axes": [{"param": "nr_requests", "values": [64]}],
  "job": {"engine": "fio", "fio": {"rw": "randwrite", "bs": "64k", "ioengine": "libaio",
          "direct": true, "iodepth": 8, "size": "32m", "runtime_s": 1, "time_based": true, "rate_iops": 1024},
          "loops": 2}
}
PLAN
}
# nodes_ok DESC PLAN NAME...: fleettune-ctl nodes passes its pre-flight and lists every NAME.
nodes_ok() {
	local desc=$1 planf=$2 n
	shift 2
	"$CTL_BIN" nodes "$planf" >"$IT_TMP/nodes.out" 2>"$IT_TMP/nodes.err"
	it_eq "$desc: fleettune-ctl nodes exits 0" 0 "$?"
	[ -s "$IT_TMP/nodes.err" ] && sed 's/^/# /' "$IT_TMP/nodes.err"
	for n in "$@"; do
		it_check "$desc: node $n is listed" grep -q -- "$n" "$IT_TMP/nodes.out"
	done
}
# refused DESC PLAN MESSAGE: fleettune-ctl nodes exits 1 and says MESSAGE.
refused() {
	"$CTL_BIN" nodes "$2" >"$IT_TMP/ref.out" 2>"$IT_TMP/ref.err"
	it_eq "$1: exits 1" 1 "$?"
	it_check "$1: says '$3'" grep -qF -- "$3" "$IT_TMP/ref.err"
	grep -qF -- "$3" "$IT_TMP/ref.err" || cat "$IT_TMP/ref.err"
}

# 1. A hosts file, as fio's --client list and elbencho's hostsfile: host:port device.
cat >"$IT_TMP/lists/hosts.txt" <<EOF
# two agents on this host
127.0.0.1:$P1 $A_DEV
127.0.0.1:$P2 /dev/$B_DEV
EOF
plan "$IT_TMP/hosts.json" '{"file": "lists/hosts.txt", "token_file": "lists/token"}'
nodes_ok "hosts file" "$IT_TMP/hosts.json" "127.0.0.1-$P1" "127.0.0.1-$P2" "$A_DEV" "$B_DEV"

# 2. An Ansible INI inventory: the fleettune group only (the bastion has no device), group
# variables and host variables, a token file relative to the inventory.
cat >"$IT_TMP/lists/inventory.ini" <<EOF
bastion.example.com

[fleettune]
node1 ansible_host=127.0.0.1 fleettune_port=$P1 fleettune_device=$A_DEV
node2 ansible_host=127.0.0.1 fleettune_port=$P2

[fleettune:vars]
fleettune_device=$B_DEV
fleettune_token_file=token

[storage:children]
fleettune
EOF
plan "$IT_TMP/ini.json" '{"file": "lists/inventory.ini", "group": "storage"}'
nodes_ok "Ansible INI" "$IT_TMP/ini.json" node1 node2 "$A_DEV" "$B_DEV"

# 3. An Ansible YAML inventory, and a real sweep over it.
cat >"$IT_TMP/lists/inventory.yaml" <<EOF
---
all:
  vars:
    fleettune_token_file: token
    ntp_servers: [0.pool.ntp.org, 1.pool.ntp.org]
  children:
    fleettune:
      hosts:
        node1: {ansible_host: 127.0.0.1, fleettune_port: $P1, fleettune_device: $A_DEV}
        node2:
          fleettune_url: "http://127.0.0.1:$P2"
          fleettune_device: $B_DEV
    web:
      hosts:
        www1:
EOF
plan "$IT_TMP/yaml.json" '{"file": "lists/inventory.yaml", "group": "fleettune"}'
nodes_ok "Ansible YAML" "$IT_TMP/yaml.json" node1 node2
"$CTL_BIN" sweep "$IT_TMP/yaml.json" --db "$CTL_DB" >"$IT_TMP/sweep.out" 2>"$IT_TMP/sweep.err"
rc=$?
it_eq "a sweep over the YAML inventory's nodes exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -n 20 "$IT_TMP/sweep.err"
it_check "the table names both nodes" bash -c 'grep -q node1 "$1" && grep -q node2 "$1"' _ "$IT_TMP/sweep.out"
it_eq "node1 restored" "$A_ORIG" "$(it_sys "$A_DEV" scheduler) $(it_sys "$A_DEV" nr_requests)"
it_eq "node2 restored" "$B_ORIG" "$(it_sys "$B_DEV" scheduler) $(it_sys "$B_DEV" nr_requests)"
"$CTL_BIN" show 1 --db "$CTL_DB" --format json >"$IT_TMP/show.json"
it_eq "the stored plan has the inventory's nodes written out" \
	"node1 http://127.0.0.1:$P1 $A_DEV node2 http://127.0.0.1:$P2 $B_DEV" \
	"$(jq -r '[.plan.nodes[] | .name, .url, .device] | join(" ")' "$IT_TMP/show.json")"
it_eq "and no nodes_from (it reads back without the file)" null "$(jq .plan.nodes_from "$IT_TMP/show.json")"

# 4. kubectl get pods -l app.kubernetes.io/name=fleettune-agent -o json: pod IPs, the
# container port named api, the device from the fleettune.io/device label.
pod() { # NAME NODE PORT DEVICE
	cat <<EOF
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "$1", "namespace": "fleettune",
                  "labels": {"app.kubernetes.io/name": "fleettune-agent", "fleettune.io/device": "$4"}},
     "spec": {"nodeName": "$2", "containers": [{"name": "agent",
              "ports": [{"name": "api", "containerPort": $3, "protocol": "TCP"}]}]},
     "status": {"phase": "Running", "podIP": "127.0.0.1", "hostIP": "127.0.0.1",
                "conditions": [{"type": "Ready", "status": "True"}]}}
EOF
}
{
	echo '{"apiVersion": "v1", "kind": "List", "items": ['
	pod fleettune-agent-7xk2p worker-1 "$P1" "$A_DEV"
	echo ','
	pod fleettune-agent-9qw4z worker-2 "$P2" "$B_DEV"
	echo '], "metadata": {"resourceVersion": ""}}'
} >"$IT_TMP/lists/pods.json"
plan "$IT_TMP/pods-plan.json" '{"file": "lists/pods.json", "token_file": "lists/token"}'
nodes_ok "kubectl pods" "$IT_TMP/pods-plan.json" worker-1 worker-2

# 5. --nodes-from FILE (relative to the current directory) replaces the plan's nodes: a plan
# template with no nodes, and one whose nodes are elsewhere; the plan's options still apply.
plan "$IT_TMP/template.json" '{"token_file": "lists/token"}'
out=$(cd "$IT_TMP" && "$CTL_BIN" nodes template.json --nodes-from lists/hosts.txt 2>&1)
it_eq "--nodes-from hosts.txt with a template that has no nodes: exit 0" 0 "$?"
it_check "--nodes-from: both hosts are listed" grep -q "127.0.0.1-$P2" <<<"$out"
sed 's#"nodes_from": {"token_file": "lists/token"}#"nodes": [{"name": "gone", "url": "http://127.0.0.1:1", "device": "sdz"}], "nodes_from": {"group": "fleettune"}#' \
	"$IT_TMP/template.json" >"$IT_TMP/elsewhere.json"
out=$(cd "$IT_TMP" && "$CTL_BIN" nodes elsewhere.json --nodes-from lists/inventory.yaml 2>&1)
it_eq "--nodes-from inventory.yaml replaces the plan's own nodes: exit 0" 0 "$?"
it_check "--nodes-from: the plan's node is not asked" bash -c '! grep -q gone <<<"$1"' _ "$out"
out=$(cd "$IT_TMP" && "$CTL_BIN" sweep template.json --dry-run --nodes-from lists/pods.json 2>&1)
it_eq "sweep --dry-run --nodes-from pods.json: exit 0" 0 "$?"
out=$(cd "$IT_TMP" && "$CTL_BIN" nodes template.json --nodes-from lists/none.txt 2>&1)
it_eq "--nodes-from a missing file: exit 1" 1 "$?"
it_check "--nodes-from a missing file: says which ($out)" \
	grep -qF "nodes_from: cannot read 'lists/none.txt': No such file or directory" <<<"$out"
"$CTL_BIN" nodes "$IT_TMP/template.json" >/dev/null 2>"$IT_TMP/nofile.err"
it_eq "a template without --nodes-from: exit 1" 1 "$?"
it_check "a template without --nodes-from: nodes_from.file is missing" \
	grep -qF "nodes_from.file: required field is missing" "$IT_TMP/nofile.err"

# 6. Errors name the file and the line, and change nothing.
printf '127.0.0.1:%s %s\n127.0.0.1:%s\n' "$P1" "$A_DEV" "$P2" >"$IT_TMP/lists/nodev.txt"
plan "$IT_TMP/nodev.json" '{"file": "lists/nodev.txt", "token_file": "lists/token"}'
refused "a host without a device" "$IT_TMP/nodev.json" \
	"lists/nodev.txt:2: host '127.0.0.1' has no device: write 'host[:port] device' or give a default device"
printf 'host,port,device\n127.0.0.1;%s;%s\n' "$P1" "$A_DEV" >"$IT_TMP/lists/nodes.csv"
plan "$IT_TMP/csv.json" '"lists/nodes.csv"'
refused "a file in no known format" "$IT_TMP/csv.json" \
	"lists/nodes.csv:1: 'host,port,device' is not a host list line ('name url device' or 'host[:port] [device]'), an Ansible inventory (INI or YAML) or kubectl get pods -o json"
plan "$IT_TMP/nogroup.json" '{"file": "lists/inventory.ini", "group": "databases"}'
refused "a group the inventory lacks" "$IT_TMP/nogroup.json" \
	"lists/inventory.ini: no group 'databases' with hosts (groups: ungrouped, fleettune, storage)"
plan "$IT_TMP/all.json" '"lists/inventory.ini"'
refused "every host of the inventory: the bastion has no device" "$IT_TMP/all.json" \
	"lists/inventory.ini:1: host 'bastion.example.com' has no device"
for n in node1 node2; do
	url_var=${n}_URL
	it_http GET "${!url_var}/api/v1/jobs" "$(cat "$IT_TMP/lists/token")"
	runs=$(jq --arg n "$n" '[.points[].nodes[] | select(.node == $n) | (.passes | length) + (.warmup | length)] | add' "$IT_TMP/show.json")
	it_eq "$n: only the sweep's jobs (a one-loop job per pass: $runs)" "$runs" "$(jq '.jobs | length' <<<"$HTTP_BODY")"
done
it_done
