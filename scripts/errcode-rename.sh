#!/bin/sh
# errcode-rename.sh -- rewrite string error codes into common/errcode.h's enum, idempotently.
#
#   scripts/errcode-rename.sh [--check | --list] [FILE...]
#
# With no FILE, every tracked *.c and *.h of the tree (git ls-files) is read. It rewrites:
#   err_set(e, rc, "word", ...), err_set_at(e, rc, "word", path, ...) and
#   http_error(resp, status, "word", ...)            -> ERR_WORD in the code argument
#     (every literal of that argument, so `rc == -ENOENT ? "not_found" : "internal"` too,
#     and a `#define NAME "word"` of the same file when NAME is passed as the code);
#   strcmp(X.code, "word") / streq(X.code, "word")   -> X.code != ERR_WORD / X.code == ERR_WORD
#     (with ! and == 0 / != 0 read the usual way; either argument order);
#   assert_string_equal(X.code, "word" or Y.code)    -> assert_int_equal(...);
#   X.code[0], !X.code[0], X.code[0] != '\0'        -> X.code != ERR_NONE, X.code == ERR_NONE;
#   .err_code = "word", (struct db_kind){ s, "word", ...} -> ERR_WORD (common/db.h).
# X is a struct err: a name declared `struct err NAME` (a variable, parameter or member)
# somewhere in the files read, reached through any path (a->b[i].e.code).
#
# A word the table does not have is printed with its place and nothing is written (exit 1):
# add its row to common/errcode.h and run again. --check writes nothing and fails when a
# rewrite is due (tests/lint/errcode.sh). --list prints every word found, known or not.
set -eu
cd "$(dirname "$0")/.."
mode=write
case "${1:-}" in
--check) mode=check; shift ;;
--list) mode=list; shift ;;
esac
if [ $# -eq 0 ]; then
	set -- $(git ls-files '*.c' '*.h' | grep -v '^common/errcode\.[ch]$')
fi
exec perl -e '
use strict;
use warnings;

my $mode = shift @ARGV;
my %enum;    # word -> ERR_NAME
if (open(my $t, "<", "common/errcode.h")) {
	while (<$t>) {
		$enum{$2} = $1 if /^\s*X\(\s*(ERR_\w+)\s*,\s*"(\w*)"\s*,/;
	}
	close($t);
}
die "errcode-rename: no X(ERR_..., \"word\", ...) rows in common/errcode.h\n" unless %enum || $mode eq "list";

my (%text, %names);
for my $f (@ARGV) {
	open(my $h, "<", $f) or die "errcode-rename: $f: $!\n";
	local $/;
	$text{$f} = <$h>;
	close($h);
	my $s = $text{$f};
	# The names a struct err goes by: `struct err a, *b;`, `struct err e = { 0 };`,
	# parameters `struct err *e)`, members, arrays `struct err errs[4];`.
	while ($s =~ /\bstruct\s+err\s+((?:const\s+)?\**\s*\w+(?:\s*\[[^\]]*\])?(?:\s*,\s*\**\s*\w+(?:\s*\[[^\]]*\])?)*)\s*[;,)=]/g) {
		for my $d (split /,/, $1) {
			$names{$1} = 1 if $d =~ /(\w+)\s*(?:\[[^\]]*\])?\s*$/;
		}
	}
}
delete $names{const};

my (@unknown, %seen, @changed);
sub word_of {
	my ($w, $f, $pos, $s) = @_;
	my $line = 1 + (substr($s, 0, $pos) =~ tr/\n//);
	$seen{$w}++;
	return $enum{$w} if exists $enum{$w};
	push @unknown, "$f:$line: unknown error code \"$w\"";
	return undef;
}

# The span [start, end) of top-level argument `want` of the call whose "(" is at `open`.
sub arg_span {
	my ($s, $open, $want) = @_;
	my ($depth, $arg, $start) = (0, 0, $open + 1);
	for (my $i = $open + 1; $i < length($s); $i++) {
		my $c = substr($s, $i, 1);
		if ($c eq "\"" || $c eq "\x27") {
			my $q = $c;
			for ($i++; $i < length($s); $i++) {
				my $d = substr($s, $i, 1);
				if ($d eq "\\") { $i++; next; }
				last if $d eq $q;
			}
			next;
		}
		if ($c eq "(" || $c eq "[" || $c eq "{") { $depth++; next; }
		if ($c eq ")" || $c eq "]" || $c eq "}") {
			if ($depth == 0) {
				return ($start, $i) if $arg == $want;
				return;
			}
			$depth--;
			next;
		}
		if ($c eq "," && $depth == 0) {
			return ($start, $i) if $arg == $want;
			$arg++;
			$start = $i + 1;
		}
	}
	return;
}

my $idx = qr/(?:\s*\[[^\[\]]*\])*/;
my $lv = qr/(?<![\w.>])((?:\w+$idx\s*(?:\.|->)\s*)*?(\w+)$idx\s*(?:\.|->)\s*code)\b/;

for my $f (@ARGV) {
	my $s = $text{$f};
	my $orig = $s;

	# 1. The code argument of err_set, err_set_at and http_error.
	my @edits;    # [start, end, new]
	my %macro;    # NAME passed as a code
	while ($s =~ /\b(err_set|err_set_at|http_error)\s*\(/g) {
		my $open = pos($s) - 1;
		my ($a, $b) = arg_span($s, $open, 2);
		next unless defined $b;
		my $arg = substr($s, $a, $b - $a);
		$macro{$1} = 1 if $arg =~ /^\s*([A-Z_][A-Z0-9_]*)\s*$/ && $1 !~ /^ERR_/;
		next unless $arg =~ /"/;
		my $new = $arg;
		$new =~ s/"(\w*)"/my $n = word_of($1, $f, $a, $s); defined $n ? $n : "\"$1\""/ge;
		push @edits, [ $a, $b, $new ] if $new ne $arg;
	}
	for my $e (sort { $b->[0] <=> $a->[0] } @edits) {
		substr($s, $e->[0], $e->[1] - $e->[0]) = $e->[2];
	}
	for my $m (keys %macro) {
		$s =~ s/^(\s*#\s*define\s+\Q$m\E\s+)"(\w*)"/my $n = word_of($2, $f, $-[0], $s); defined $n ? "$1$n" : "$1\"$2\""/gme;
	}

	# 2. Comparisons of a struct err code with a word.
	my $cmp = sub {
		my ($not, $fn, $path, $name, $w, $tail, $pos) = @_;
		return undef unless $names{$name};
		my $n = word_of($w, $f, $pos, $s);
		return undef unless defined $n;
		my $eq = $fn eq "streq";    # strcmp() is true when they differ
		$eq = !$eq if $not;
		$eq = !$eq if defined $tail && $tail =~ /==/;
		return "$path " . ($eq ? "==" : "!=") . " $n";
	};
	$s =~ s{(!\s*)?\b(strcmp|streq)\s*\(\s*$lv\s*,\s*"(\w*)"\s*\)(\s*[=!]=\s*0\b)?}
	       {my $r = $cmp->($1, $2, $3, $4, $5, $6, $-[0]); defined $r ? $r : $&}ge;
	$s =~ s{(!\s*)?\b(strcmp|streq)\s*\(\s*"(\w*)"\s*,\s*$lv\s*\)(\s*[=!]=\s*0\b)?}
	       {my $r = $cmp->($1, $2, $4, $5, $3, $6, $-[0]); defined $r ? $r : $&}ge;

	# 3. Tests: a code asserted as a string.
	$s =~ s{\bassert_string_equal\(\s*$lv\s*,\s*"(\w*)"\s*\)}
	       {my $n = $names{$2} ? word_of($3, $f, $-[0], $s) : undef;
	        defined $n ? "assert_int_equal($1, $n)" : $&}ge;
	$s =~ s{\bassert_string_equal\(\s*$lv\s*,\s*$lv\s*\)}
	       {$names{$2} && $names{$4} ? "assert_int_equal($1, $3)" : $&}ge;

	# 4. Emptiness: code[0] was "no code".
	$s =~ s{$lv\s*\[\s*0\s*\]\s*([=!])=\s*(?:\x27\\0\x27|0)\b}
	       {$names{$2} ? "$1 " . ($3 eq "=" ? "==" : "!=") . " ERR_NONE" : $&}ge;
	$s =~ s{!\s*$lv\s*\[\s*0\s*\]}{$names{$2} ? "$1 == ERR_NONE" : $&}ge;
	$s =~ s{$lv\s*\[\s*0\s*\]}{$names{$2} ? "$1 != ERR_NONE" : $&}ge;

	# 5. A database kind names its code (common/db.h): .err_code = "word", and the second
	#    member of a (struct db_kind){ schema, "word", ... } literal.
	$s =~ s{(\.err_code\s*=\s*)"(\w*)"}
	       {my $n = word_of($2, $f, $-[0], $s); defined $n ? "$1$n" : $&}ge;
	$s =~ s{(\(\s*struct\s+db_kind\s*\)\s*\{\s*[^,{}]+,\s*)"(\w*)"}
	       {my $n = word_of($2, $f, $-[0], $s); defined $n ? "$1$n" : $&}ge;

	# 6. The code of a JSON reader (common/jread.h): the second member of a struct jread
	#    initialiser, { e, "word" }, also as a designated member .jr = { e, "word" }.
	$s =~ s#(\bstruct\s+jread\b[^;\x7b]*\x7b\s*[^,\x7b\x7d]+,\s*)"(\w*)"#my $n = word_of($2, $f, $-[0], $s); defined $n ? "$1$n" : $&#ge;
	$s =~ s#(\.jr\s*=\s*\x7b\s*[^,\x7b\x7d]+,\s*)"(\w*)"#my $n = word_of($2, $f, $-[0], $s); defined $n ? "$1$n" : $&#ge;

	if ($s ne $orig) {
		push @changed, $f;
		$text{$f} = $s;
	}
}

if ($mode eq "list") {
	printf "%s\t%d%s\n", $_, $seen{$_}, exists $enum{$_} ? "" : "\tunknown" for sort keys %seen;
	exit 0;
}
if (@unknown) {
	print STDERR "$_\n" for @unknown;
	print STDERR "errcode-rename: add these codes to common/errcode.h (one X row each); nothing was written\n";
	exit 1;
}
if ($mode eq "check") {
	print STDERR "$_: error codes as strings (run scripts/errcode-rename.sh)\n" for @changed;
	exit(@changed ? 1 : 0);
}
for my $f (@changed) {
	open(my $h, ">", $f) or die "errcode-rename: $f: $!\n";
	print $h $text{$f};
	close($h);
	print "$f\n";
}
# ERR_BAD_REQUEST is longer than "bad_request": the lines are the tree style again.
system("clang-format", "-i", @changed) == 0 or die "errcode-rename: clang-format failed\n"
	if @changed;
' "$mode" "$@"
