# lint_lib.sh -- what the lint scripts share: prove the check catches injected violations on a
# copy, then run it on the tree. Source it, define check DIR (prints violations, returns 1 if
# any), plant DIR (copies the tree into DIR and injects violations) and caught (one grep -E
# pattern a line that check's output must match on the planted copy), then call lint_run.

# lint_run ROOT OK_MESSAGE: exit 0 when ROOT passes, 1 when it does not or the self-test fails.
lint_run() {
	local root=$1 ok=$2 tmp out want
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	plant "$tmp"
	out=$(check "$tmp")
	while read -r want; do
		if ! grep -qE -- "$want" <<<"$out"; then
			echo "self-test failed: an injected violation was not caught ($want):"
			echo "$out"
			exit 1
		fi
	done < <(caught)
	if check "$root"; then
		echo "ok: $ok"
		exit 0
	fi
	exit 1
}
