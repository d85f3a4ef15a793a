#!/bin/bash
# ctl_layers.sh -- the layers of both binaries run one way: no file in controller/ (then in
# agent/) includes a header of a layer above its own or beside it, and each library header
# stays in its one module. Usage: ctl_layers.sh [CONTROLLER_DIR [AGENT_DIR]]. For each binary
# it first proves it catches a violation.
set -u
dir=${1:-$(cd "$(dirname "$0")/../../controller" && pwd)}
agent_dir=${2:-$(cd "$dir/../agent" && pwd)}
status=0

# Rank of each module, bottom to top. A module may include its own header and those of
# strictly lower rank. config (parameter values and their codec) is the plan's and everyone's
# vocabulary; ctlstore persists the sweep model and sits just above it; client is
# the HTTP edge and needs no controller module; effect (fleet effect statistics) is pure and
# knows no controller struct, so verdict can build on it; race (the adaptive strategy's
# racing) judges a sweep's points with effect, and verdict takes an adaptive sweep's best
# from it; cohort judges each row within each cohort with effect, for verdict; words (the
# phrases every rendering shares) and export read only the sweep model, and sweepdoc writes
# the sweep document with words; analysis is the one caller of verdict's
# judges, beside strategy, which reads what it computed; report, report_html and progress
# render; sweeprun runs a sweep with all of them, site writes the stored sweeps as pages (and
# the index document, its JSON), apply sets a configuration (or each cohort's best) on a fleet;
# cmd is what the commands share (options, helpers), cmd_rollout the rollout and verify
# commands; main is the command table.
declare -A rank=(
	[config]=1 [client]=1 [effect]=1 [rounds]=1 [nodelist]=1
	[plan]=2
	[sweep]=3 [rollout]=3 [fsparam]=3
	[ctlstore]=4 [race]=4 [cohort]=4 [words]=4 [export]=4 [drift]=4
	[verdict]=5 [sweepdoc]=5
	[strategy]=6 [analysis]=6
	[fleet]=7 [schedule]=7
	[preflight]=8 [runner]=8 [rollrun]=8 [verify]=8
	[report]=9 [report_html]=9 [progress]=9 [report_rollout]=9
	[sweeprun]=10 [site]=10 [apply]=10 [cmd]=10
	[cmd_rollout]=11
	[main]=12
)
# Library headers and the only modules that may include them (ctlstore reaches SQLite through
# common/db.h).
declare -A only=(
	[sqlite3.h]=""
	[curl/curl.h]="client"
	[jansson.h]="config nodelist plan fleet sweepdoc site"
	[microhttpd.h]=""
)

# Files that belong to another file's module (name=module), where a module is a .c/.h pair
# and its helpers: the plan's nodes and its parser's shared header, the report's node text;
# nodelist_yaml.c, nodelist_inv.c, nodelist_kube.c and nodelist_priv.h are nodelist's, the
# document's reader sweepdoc's, ctlstore_priv.h and ctlstore_rollout.c ctlstore's,
# fleet_priv.h, fleet_profile.c and fleet_probe.c fleet's, rollrun_priv.h and rollmeasure.c
# rollrun's.
declare -A group=([plan_nodes]=plan [plan_priv]=plan [report_nodes]=report [nodelist_yaml]=nodelist
	[nodelist_inv]=nodelist [nodelist_kube]=nodelist [nodelist_priv]=nodelist
	[sweepdoc_read]=sweepdoc [ctlstore_priv]=ctlstore [ctlstore_rollout]=ctlstore
	[fleet_priv]=fleet [fleet_profile]=fleet [fleet_probe]=fleet [rollrun_priv]=rollrun
	[rollmeasure]=rollrun)

# check DIR: print every violation; return 1 when there is one.
check() {
	local d=$1 f mod inc dep bad=0 lib
	for f in "$d"/*.c "$d"/*.h; do
		mod=$(basename "$f"); mod=${mod%.*}; mod=${group[$mod]:-$mod}
		if [ -z "${rank[$mod]:-}" ]; then
			echo "$f: module '$mod' has no rank in $(basename "$0"): place it in the layers"
			bad=1
			continue
		fi
		while read -r inc; do
			dep=${inc%.h}; dep=${group[$dep]:-$dep}
			[ -e "$d/$inc" ] || continue          # common/ and system headers
			[ "$dep" = "$mod" ] && continue
			if [ -z "${rank[$dep]:-}" ] || [ "${rank[$dep]}" -ge "${rank[$mod]}" ]; then
				echo "$f: includes \"$inc\" (rank ${rank[$dep]:-?}) from $mod (rank ${rank[$mod]}): a layer above or beside it"
				bad=1
			fi
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
		for lib in "${!only[@]}"; do
			grep -q "^#include <$lib>" "$f" || continue
			case " ${only[$lib]} " in
			*" $mod "*) ;;
			*) echo "$f: includes <$lib>, which only ${only[$lib]:-no controller module} may"; bad=1 ;;
			esac
		done
	done
	return $bad
}

# The check must catch a store that words its own lines or calls SQLite itself, and curl
# outside the client.
plant() {
	cp "$dir"/*.c "$dir"/*.h "$1"/
	sed -i '0,/^#include "ctlstore.h"/s//#include "ctlstore.h"\n#include "report.h"/' "$1/ctlstore.c"
	sed -i '0,/^#include "fleet.h"/s//#include "fleet.h"\n#include <curl\/curl.h>/' "$1/fleet.c"
	sed -i '0,/^#include "ctlstore.h"/s//#include <sqlite3.h>\n#include "ctlstore.h"/' "$1/ctlstore.c"
}
caught() {
	echo 'ctlstore.c: includes "report.h"'
	echo 'fleet.c: includes <curl/curl.h>'
	echo 'ctlstore.c: includes <sqlite3.h>'
}

source "$(dirname "$0")/lint_lib.sh"
(lint_run "$dir" "every include in $dir runs down the layers") || status=1

# ---- the agent ----

# Rank of each agent module, bottom to top (docs/internals.md, Source layout): the leaves (sysfs is the only
# code that writes /sys, engine the engine table, httpd the HTTP edge, ptree and cgroup what
# contain builds on, params_cache, switches); tune and identity (what a device is, read only)
# on sysfs, the engines (fio, dd, bonnie, iozone) on engine.h, contain on ptree and cgroup,
# fsopt (the filesystem option tables) on engine.h's argv helpers; jobspec and proc, jobdir (a
# pass's own directory), fsinfo (the tools' figures) on fsopt, profile (a profile's definition
# and match); jobrec (a job as recorded), jobfs (a job's filesystem) on proc, contain and
# fsinfo, keeprec (what a profile is to a device); wire, the JSON codec the store uses for its
# columns; the store; session, job, pending (a killed run's unfinished writes) and keeper (the
# profiles kept, keep.c its per-device half, keepid its identity look-ups) beside each other,
# on the store; agent, the wiring; the API; main.
unset rank group only
declare -A rank=(
	[sysfs]=1 [engine]=1 [ptree]=1 [cgroup]=1 [httpd]=1 [params_cache]=1 [switches]=1
	[tune]=2 [identity]=2 [fio]=2 [dd]=2 [bonnie]=2 [iozone]=2 [contain]=2 [fsopt]=2
	[jobspec]=3 [proc]=3 [jobdir]=3 [fsinfo]=3 [profile]=3
	[jobrec]=4 [jobfs]=4 [keeprec]=4
	[wire]=5
	[store]=6
	[session]=7 [job]=7 [pending]=7 [keeper]=7
	[agent]=8
	[api]=9
	[main]=10
)
declare -A group=(
	[http]=httpd [httpd_hold]=httpd [httpd_priv]=httpd [sysfs_catalogue]=sysfs [sysfs_priv]=sysfs
	[wire_job]=wire [wire_identity]=wire [wire_profile]=wire [job_check]=job [job_run]=job
	[job_priv]=job [keep]=keeper [keepid]=keeper
	[store_job]=store [store_metrics]=store [store_priv]=store [store_profile]=store
	[api_jobs]=api [api_metrics]=api [api_priv]=api [api_profiles]=api
)
# The agent's library headers are tests/lint/libs.sh's to keep in their modules.
declare -A only=()

# The check must catch the two arrows that once ran up (wire.h on the store, the job queue on
# the whole agent), a store file on a module beside the queue, and a file of no known layer.
plant() {
	cp "$agent_dir"/*.c "$agent_dir"/*.h "$1"/
	sed -i '0,/^#include "jobrec.h"/s//#include "jobrec.h"\n#include "store.h"/' "$1/wire.h"
	sed -i '0,/^#include "job.h"/s//#include "agent.h"\n#include "job.h"/' "$1/job.c"
	sed -i '0,/^#include "store_priv.h"/s//#include "session.h"\n#include "store_priv.h"/' "$1/store_job.c"
	echo '#include "job.h"' >"$1/newthing.c"
}
caught() {
	echo 'wire.h: includes "store.h"'
	echo 'job.c: includes "agent.h"'
	echo 'store_job.c: includes "session.h"'
	echo "newthing.c: module 'newthing' has no rank"
}

(lint_run "$agent_dir" "every include in $agent_dir runs down the layers") || status=1
exit $status
