#!/bin/bash
# errcode.sh -- error codes are common/errcode.h's enum, checked by the compiler: a code outside
# the table, as an enum name or as a string, does not compile, and no err_set, err_set_at or
# http_error call, code comparison or test assert of the tree holds a code as a string
# (scripts/errcode-rename.sh --check). Usage: errcode.sh [SOURCE_DIR]. It first proves the
# compile catches both misspellings and that the check catches a planted string code.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# compiles BODY: whether a file calling err_set with BODY compiles against common/err.h.
compiles() {
	printf '#include <errno.h>\n#include "err.h"\nint f(struct err *e);\nint f(struct err *e)\n{\n\treturn %s;\n}\n' \
		"$1" >"$tmp/t.c"
	"$CC" -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I"$root/common" "$tmp/t.c" \
		>"$tmp/cc.out" 2>&1
}

# The control: a code of the table compiles (else the refusals below prove nothing).
if ! compiles 'err_set(e, -EINVAL, ERR_INVALID_VALUE, "x %d", 1)'; then
	echo "errcode.sh: a valid err_set does not compile:"
	cat "$tmp/cc.out"
	exit 1
fi
for bad in 'err_set(e, -1, ERR_NO_SUCH_CODE, "x")' 'err_set(e, -1, "no_such_code", "x")' \
	'err_set_at(e, -1, "invalid_value", "a.b", "x")'; do
	if compiles "$bad"; then
		echo "errcode.sh: compiles, and must not: $bad"
		fail=1
	fi
done

# The check catches a string code it knows (a rewrite is due) and one it does not (named).
printf 'static int g(struct err *e)\n{\n\treturn err_set(e, -1, "bad_request", "x");\n}\n' >"$tmp/known.c"
printf 'static int g(struct err *e)\n{\n\treturn err_set(e, -1, "no_such_code", "x");\n}\n' >"$tmp/unknown.c"
if "$root/scripts/errcode-rename.sh" --check "$tmp/known.c" >/dev/null 2>&1; then
	echo "errcode.sh: errcode-rename.sh --check passes a string code"
	fail=1
fi
if "$root/scripts/errcode-rename.sh" --check "$tmp/unknown.c" 2>"$tmp/out" ||
	! grep -q 'unknown error code "no_such_code"' "$tmp/out"; then
	echo "errcode.sh: errcode-rename.sh --check does not name an unknown code"
	fail=1
fi

# The tree itself.
if ! (cd "$root" && git rev-parse --git-dir >/dev/null 2>&1); then
	echo "errcode.sh: $root is not a git tree (the check reads git ls-files)"
	exit 1
fi
if ! "$root/scripts/errcode-rename.sh" --check; then
	echo "errcode.sh: error codes as strings remain (run scripts/errcode-rename.sh)"
	fail=1
fi
[ $fail -eq 0 ] && echo "errcode.sh: ok"
exit $fail
